/* JSON helpers over Jansson: typed field readers that name the place of a bad value, parsing a
 * buffer or a file with line and column, and writing a file whole or not at all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_jsonutil.h"

const char *ts_jtype(json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

int ts_jint_value(json_t *v, const char *where, const char *what, long lo, long hi, long *out,
                  ts_err *e)
{
    if (!json_is_integer(v))
        return ts_fail(e, TS_EINPUT, "%s: %s must be an integer, got %s", where, what, ts_jtype(v));
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi)
        return ts_fail(e, TS_EINPUT, "%s: %s must be between %ld and %ld, got %lld", where, what,
                       lo, hi, (long long)x);
    *out = (long)x;
    return TS_OK;
}

int ts_jint(json_t *obj, const char *key, const char *where, long lo, long hi, long *out, ts_err *e)
{
    json_t *v = json_object_get(obj, key);
    char what[96];
    snprintf(what, sizeof what, "field '%s'", key);
    if (!v)
        return ts_fail(e, TS_EINPUT, "%s: missing field '%s'", where, key);
    return ts_jint_value(v, where, what, lo, hi, out, e);
}

int ts_jint_opt(json_t *obj, const char *key, const char *where, long lo, long hi, long def,
                long *out, ts_err *e)
{
    if (!json_object_get(obj, key)) {
        *out = def;
        return TS_OK;
    }
    return ts_jint(obj, key, where, lo, hi, out, e);
}

int ts_jstr(json_t *obj, const char *key, const char *where, const char **out, ts_err *e)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return ts_fail(e, TS_EINPUT, "%s: missing field '%s'", where, key);
    if (!json_is_string(v))
        return ts_fail(e, TS_EINPUT, "%s: field '%s' must be a string, got %s", where, key,
                       ts_jtype(v));
    if (!json_string_value(v)[0])
        return ts_fail(e, TS_EINPUT, "%s: field '%s' is empty", where, key);
    *out = json_string_value(v);
    return TS_OK;
}

int ts_jarray(json_t *obj, const char *key, const char *where, bool allow_empty, json_t **out,
              ts_err *e)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return ts_fail(e, TS_EINPUT, "%s: missing field '%s'", where, key);
    if (!json_is_array(v))
        return ts_fail(e, TS_EINPUT, "%s: field '%s' must be an array, got %s", where, key,
                       ts_jtype(v));
    if (!allow_empty && json_array_size(v) == 0)
        return ts_fail(e, TS_EINPUT, "%s: field '%s' is empty", where, key);
    *out = v;
    return TS_OK;
}

int ts_jkeys(json_t *obj, const char *where, const char *const *allowed, ts_err *e)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            if (!strcmp(*a, key))
                ok = 1;
        if (!ok)
            return ts_fail(e, TS_EINPUT, "%s: unknown field '%s'", where, key);
    }
    return TS_OK;
}

int ts_jformat(json_t *obj, const char *where, const char *expected, ts_err *e)
{
    const char *f;
    if (!json_is_object(obj))
        return ts_fail(e, TS_EINPUT, "%s: expected a JSON object, got %s", where, ts_jtype(obj));
    if (ts_jstr(obj, "format", where, &f, e))
        return e ? e->code : TS_EINPUT;
    if (strcmp(f, expected))
        return ts_fail(e, TS_EINPUT, "%s: field 'format' is '%s', expected '%s'", where, f,
                       expected);
    return TS_OK;
}

/* Reads the whole stream: the parser then sees every byte, including any after a NUL. */
static char *ts_slurp(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *nb = realloc(buf, cap * 2);
        if (!nb)
            free(buf);
        buf = nb;
        cap *= 2;
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    *len = n;
    return buf;
}

int ts_json_parse(const char *buf, size_t len, const char *where, json_t **out, ts_err *e)
{
    /* JSON text holds no raw NUL (inside strings it must be written \u0000); the stream parser
     * would take one between tokens for white space, so it is refused here. */
    const char *nul = memchr(buf, '\0', len);
    if (nul)
        return ts_fail(e, TS_EINPUT, "%s: malformed JSON: NUL byte at offset %zu", where,
                       (size_t)(nul - buf));
    json_error_t je;
    json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        return ts_fail(e, TS_EINPUT, "%s:%d:%d: malformed JSON: %s", where, je.line, je.column,
                       je.text);
    *out = j;
    return TS_OK;
}

int ts_json_read_file(const char *path, json_t **out, ts_err *e)
{
    FILE *f = stdin;
    if (!strcmp(path, "-"))
        path = "<stdin>";
    else if (!(f = fopen(path, "rb")))
        return ts_fail(e, TS_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    size_t len;
    char *buf = ts_slurp(f, &len);
    int err = errno;
    if (f != stdin)
        fclose(f);
    if (!buf)
        return ts_fail(e, TS_ESYS, "%s: cannot read: %s", path, strerror(err));
    int rc = ts_json_parse(buf, len, path, out, e);
    free(buf);
    return rc;
}

int ts_write_file(const char *path, int (*write)(FILE *f, const void *ud), const void *ud,
                  ts_err *e)
{
    if (!strcmp(path, "-")) {
        if (write(stdout, ud))
            return ts_fail(e, TS_ESYS, "<stdout>: write failed");
        return TS_OK;
    }
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return ts_fail(e, TS_EINPUT, "%s: path too long", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return ts_fail(e, TS_ESYS, "%s: cannot write: %s", path, strerror(errno));
    int bad = write(f, ud) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        remove(tmp);
        return ts_fail(e, TS_ESYS, "%s: write failed: %s", path, strerror(errno));
    }
    return TS_OK;
}

static int ts_json_write(FILE *f, const void *j)
{
    return json_dumpf((const json_t *)j, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER) ||
           fputc('\n', f) == EOF;
}

int ts_json_write_file(json_t *j, const char *path, ts_err *e)
{
    return ts_write_file(path, ts_json_write, j, e);
}
