/* Sweep specifications: a grid (or a list of grids) of axes plus explicit points, validated as a
 * whole before anything runs, and expanded into a list of uniquely named points. */
#include <stdlib.h>
#include <string.h>
#include "sweep.h"
#include "ts_time_limit.h"
#include "ts_baseline.h"
#include "ts_json.h"
#include "ts_methods.h"
#include "ts_placement.h"

/* The axes of a grid and, for explicit points, their singular names. */
enum {
    AX_PLACEMENTS,
    AX_NDEVS,
    AX_INFER,
    AX_MEMORY,
    AX_NMICROS,
    AX_METHODS,
    AX_MICRO_BATCHES,
    AX_N
};
static const char *const ax_names[AX_N] = {"placements", "ndevs",   "infer",        "memory",
                                           "nmicros",    "methods", "micro_batches"};
static const char *const ax_point_names[AX_N] = {"placement", "ndevs",  "infer",        "memory",
                                                 "nmicros",   "method", "micro_batches"};

#define MAX_NMICROS 1024
#define MAX_MICRO_BATCHES 100000

bool ts_sweep_method_is_baseline(const char *method)
{
    return ts_baseline_find(method) != NULL; /* the registry of baseline kinds */
}

static bool ts_sweep_method_known(const char *m)
{
    ts_method id;
    return ts_method_parse(m, &id) == 0 || ts_sweep_method_is_baseline(m);
}

/* One axis after parsing: n values of one type. */
typedef struct {
    int n;
    long *num; /* ndevs, memory (-1 = none, -2 = a list), nmicros, micro_batches; infer 0/1 */
    const char **str; /* placements, methods: borrowed from the JSON document */
    json_t **list; /* memory given per device (num -2): borrowed from the JSON document */
} ts_sweep_axis;

static void ts_sweep_axis_free(ts_sweep_axis *a)
{
    free(a->num);
    free(a->str);
    free(a->list);
    memset(a, 0, sizeof *a);
}

static char *ts_sweep_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Checks one value of an axis; `where` is e.g. "spec.json: grid[1].memory[2]". */
/* A memory value given as one capacity per device: whole numbers in [0, TS_MAX_MEMORY]. */
static int ts_sweep_memory_list_check(json_t *v, const char *where, ts_err *e)
{
    size_t n = json_array_size(v);
    if (n < 1 || n > TS_MAX_DEVS)
        return ts_fail(e, TS_EINPUT, "%s: a capacity per device needs 1 to %d entries, not %zu",
                       where, TS_MAX_DEVS, n);
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_array_get(v, i);
        if (!json_is_integer(x) || json_integer_value(x) < 0 ||
            json_integer_value(x) > TS_MAX_MEMORY)
            return ts_fail(e, TS_EINPUT, "%s[%zu]: expected an integer in [0, %d]", where, i,
                           TS_MAX_MEMORY);
    }
    return TS_OK;
}

static int ts_sweep_value_check(int ax, json_t *v, const char *where, long *num, const char **str,
                                json_t **list, ts_err *e)
{
    switch (ax) {
    case AX_PLACEMENTS:
    case AX_METHODS:
        if (!json_is_string(v) || json_string_length(v) == 0)
            return ts_fail(e, TS_EINPUT, "%s: expected a non-empty string", where);
        *str = json_string_value(v);
        if (ax == AX_METHODS && !ts_sweep_method_known(*str)) {
            char kinds[256], methods[256];
            ts_baseline_names(kinds, sizeof kinds);
            return ts_fail(e, TS_EINPUT,
                           "%s: unknown method '%s' (search methods: %s; baselines: %s)", where,
                           *str, ts_method_list(methods, sizeof methods), kinds);
        }
        return TS_OK;
    case AX_INFER:
        if (!json_is_boolean(v))
            return ts_fail(e, TS_EINPUT, "%s: expected true or false", where);
        *num = json_is_true(v);
        return TS_OK;
    case AX_MEMORY:
        if (json_is_array(v)) { /* one capacity per device */
            *num = -2;
            *list = v;
            return ts_sweep_memory_list_check(v, where, e);
        }
        if (json_is_string(v) && !strcmp(json_string_value(v), "none")) {
            *num = -1;
            return TS_OK;
        }
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > TS_MAX_MEMORY)
            return ts_fail(e, TS_EINPUT,
                           "%s: expected an integer in [0, %d], a list of one per device, or "
                           "\"none\"",
                           where, TS_MAX_MEMORY);
        *num = (long)json_integer_value(v);
        return TS_OK;
    default: {
        long hi = ax == AX_NDEVS ? TS_MAX_DEVS : ax == AX_NMICROS ? MAX_NMICROS : MAX_MICRO_BATCHES;
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > hi)
            return ts_fail(e, TS_EINPUT, "%s: expected an integer in [1, %ld]", where, hi);
        *num = (long)json_integer_value(v);
        return TS_OK;
    }
    }
}

/* Parses an axis given as a list (or a single value, read as a list of one). */
static int ts_sweep_axis_parse(int ax, json_t *v, const char *where, bool scalar_only,
                               ts_sweep_axis *out, ts_err *e)
{
    char w[TS_ERRLEN];
    /* a point's memory may be one list: one capacity per device */
    bool one = !json_is_array(v) || (scalar_only && ax == AX_MEMORY);
    size_t n = one ? 1 : json_array_size(v);
    if (!one && scalar_only)
        return ts_fail(e, TS_EINPUT, "%s: expected a single value, not a list", where);
    if (n == 0)
        return ts_fail(e, TS_EINPUT, "%s: empty list (an axis needs at least one value)", where);
    out->num = calloc(n, sizeof *out->num);
    out->str = calloc(n, sizeof *out->str);
    out->list = calloc(n, sizeof *out->list);
    if (!out->num || !out->str || !out->list)
        return ts_fail(e, TS_ESYS, "%s: out of memory", where);
    for (size_t i = 0; i < n; i++) {
        json_t *x = one ? v : json_array_get(v, i);
        if (!one)
            snprintf(w, sizeof w, "%s[%zu]", where, i);
        else
            snprintf(w, sizeof w, "%s", where);
        if (ts_sweep_value_check(ax, x, w, &out->num[i], &out->str[i], &out->list[i], e))
            return e->code;
        out->n++;
    }
    return TS_OK;
}

/* Copies src into dst keeping only characters safe in a file name. */
static void ts_sweep_slug(char *dst, size_t cap, const char *src)
{
    size_t j = 0;
    for (; *src && j + 1 < cap; src++) {
        char c = *src;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-' || c == '.';
        dst[j++] = ok ? c : '_';
    }
    dst[j] = '\0';
}

/* A file placement's base name without ".json", made safe for ids. */
static void ts_sweep_file_stem(char *dst, size_t cap, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", base);
    size_t n = strlen(tmp);
    if (n > 5 && !strcmp(tmp + n - 5, ".json"))
        tmp[n - 5] = '\0';
    ts_sweep_slug(dst, cap, tmp);
}

/* A per-device memory list as a point id's part: the list's slug when it fits in cap, else its
 * head and a hash of the whole list (FNV-1a), so that two lists that differ anywhere, the last
 * capacity of 16 included, make two ids. */
static void ts_sweep_memory_slug(char *dst, size_t cap, const char *list)
{
    char whole[4096];
    ts_sweep_slug(whole, sizeof whole, list);
    if (strlen(whole) < cap && strlen(list) < sizeof whole) {
        memcpy(dst, whole, strlen(whole) + 1);
        return;
    }
    unsigned long h = 2166136261UL;
    for (const unsigned char *c = (const unsigned char *)list; *c; c++)
        h = ((h ^ *c) * 16777619UL) & 0xffffffffUL;
    snprintf(dst, cap, "%.*s-h%08lx", (int)(cap - 11), whole, h);
}

static char *ts_sweep_make_id(const ts_sweep_point *p)
{
    char name[256], mem[32], k[32], n[32];
    if (p->is_file)
        ts_sweep_file_stem(name, sizeof name, p->placement);
    else
        ts_sweep_slug(name, sizeof name, p->placement);
    if (p->memory_list) /* commas are not safe in a file name */
        ts_sweep_memory_slug(mem, sizeof mem, p->memory_list);
    else if (p->memory < 0)
        snprintf(mem, sizeof mem, "none");
    else
        snprintf(mem, sizeof mem, "%ld", p->memory);
    k[0] = n[0] = '\0';
    if (p->nmicros > 0)
        snprintf(k, sizeof k, "-k%d", p->nmicros);
    if (p->micro_batches > 0)
        snprintf(n, sizeof n, "-n%ld", p->micro_batches);
    char buf[512], opts[16];
    ts_sweep_options_id(p, opts, sizeof opts);
    snprintf(buf, sizeof buf, "%s-d%d-%s-m%s%s-%s%s%s", name, p->ndevs,
             p->infer ? "infer" : "train", mem, k, p->method, n, opts);
    return ts_sweep_xstrdup(buf);
}

static bool ts_sweep_same_params(const ts_sweep_point *a, const ts_sweep_point *b)
{
    return !strcmp(a->placement, b->placement) && a->is_file == b->is_file &&
           a->ndevs == b->ndevs && a->infer == b->infer && a->memory == b->memory &&
           !strcmp(a->memory_list ? a->memory_list : "", b->memory_list ? b->memory_list : "") &&
           a->nmicros == b->nmicros && !strcmp(a->method, b->method) &&
           a->micro_batches == b->micro_batches && ts_sweep_options_same(a, b);
}

static void ts_sweep_point_free(ts_sweep_point *p)
{
    free(p->id);
    free(p->placement);
    free(p->method);
    free(p->memory_list);
    ts_sweep_options_free(p);
}

/* Adds a point unless an identical one is already there; two different points with one id (two
 * placement files of one base name) are an error. */
static int ts_sweep_spec_add(ts_sweep_spec *s, ts_sweep_point *p, const char *where, ts_err *e)
{
    int i = ts_sweep_spec_find(s, p->id);
    if (i >= 0) {
        if (ts_sweep_same_params(&s->points[i], p)) {
            ts_sweep_point_free(p);
            return TS_OK;
        }
        int rc = ts_fail(e, TS_EINPUT,
                         "%s: point '%s' clashes with an earlier point of the same name but other "
                         "parameters (two placement files with one base name?)",
                         where, p->id);
        ts_sweep_point_free(p);
        return rc;
    }
    if (s->npoints == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        ts_sweep_point *np = realloc(s->points, (size_t)cap * sizeof *np);
        if (!np) {
            ts_sweep_point_free(p);
            return ts_fail(e, TS_ESYS, "%s: out of memory", where);
        }
        s->points = np;
        s->cap = cap;
    }
    s->points[s->npoints] = *p;
    if (ts_sweep_index_add(s, s->npoints)) {
        ts_sweep_point_free(&s->points[s->npoints]);
        return ts_fail(e, TS_ESYS, "%s: out of memory", where);
    }
    s->npoints++;
    return TS_OK;
}

/* A placement named in a spec: a built-in, or a file (relative to the spec's folder). For a file
 * the device count comes from the file itself, which is loaded here so a bad file stops the sweep
 * before it starts. */
typedef struct {
    char *path; /* resolved file path, or NULL for a built-in */
    int file_ndevs;
    const ts_builtin_info *info;
} ts_sweep_placement_ref;

static bool ts_sweep_looks_like_file(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n > 5 && !strcmp(s + n - 5, ".json"));
}

static int ts_sweep_placement_resolve(const char *spec_path, const char *name, const char *where,
                                      ts_sweep_placement_ref *r, ts_err *e)
{
    memset(r, 0, sizeof *r);
    r->info = ts_builtin_find(name);
    if (r->info)
        return TS_OK;
    if (!ts_sweep_looks_like_file(name))
        return ts_fail(e, TS_EINPUT,
                       "%s: unknown placement '%s' (not a built-in, see `tessel placements`; a "
                       "file must contain '/' or end in .json)",
                       where, name);
    const char *slash = strrchr(spec_path, '/');
    size_t dirlen = (name[0] != '/' && slash) ? (size_t)(slash - spec_path) + 1 : 0;
    r->path = malloc(dirlen + strlen(name) + 1);
    if (!r->path)
        return ts_fail(e, TS_ESYS, "%s: out of memory", where);
    memcpy(r->path, spec_path, dirlen);
    strcpy(r->path + dirlen, name);
    ts_placement *pl = NULL;
    ts_err le = {0};
    if (ts_placement_load(r->path, &pl, &le)) {
        ts_fail(e, TS_EINPUT, "%s: placement file '%s': %s", where, r->path, le.msg);
        free(r->path);
        r->path = NULL;
        return TS_EINPUT;
    }
    r->file_ndevs = pl->ndevs;
    ts_placement_free(pl);
    return TS_OK;
}

/* One grid while it is expanded: the axes given, the defaults for the others, the placements. */
typedef struct {
    ts_sweep_axis ax[AX_N];
    ts_sweep_axis defaults[AX_N];
    const ts_sweep_axis *use[AX_N]; /* the given axis, or its default */
    ts_sweep_placement_ref *refs; /* one per placement */
    bool is_point;
    json_t *options; /* the search's other options (borrowed); NULL: none */
} ts_sweep_grid;

static void ts_sweep_grid_free(ts_sweep_grid *g)
{
    if (g->refs)
        for (int i = 0; i < g->ax[AX_PLACEMENTS].n; i++)
            free(g->refs[i].path);
    free(g->refs);
    for (int a = 0; a < AX_N; a++)
        ts_sweep_axis_free(&g->ax[a]);
}

/* Every key of the object is an axis (the singular names for an explicit point). */
static int ts_sweep_grid_parse(json_t *obj, const char *where, ts_sweep_grid *g, ts_err *e)
{
    const char *const *names = g->is_point ? ax_point_names : ax_names;
    char w[TS_ERRLEN];
    if (!json_is_object(obj))
        return ts_fail(e, TS_EINPUT, "%s: expected an object", where);
    const char *key;
    json_t *val;
    json_object_foreach(obj, key, val)
    {
        if (!strcmp(key, "options")) {
            g->options = val;
            if (ts_sweep_options_check(val, where, e))
                return e->code;
            continue;
        }
        int a = 0;
        while (a < AX_N && strcmp(key, names[a]))
            a++;
        if (a == AX_N)
            return ts_fail(e, TS_EINPUT,
                           "%s: unknown %s '%s' (expected %s, %s, %s, %s, %s, %s, %s or options)",
                           where, g->is_point ? "key" : "axis", key, names[0], names[1], names[2],
                           names[3], names[4], names[5], names[6]);
        snprintf(w, sizeof w, "%s.%s", where, key);
        if (ts_sweep_axis_parse(a, val, w, g->is_point, &g->ax[a], e))
            return e->code;
    }
    if (!g->ax[AX_PLACEMENTS].n)
        return ts_fail(e, TS_EINPUT, "%s: no '%s' given", where, names[AX_PLACEMENTS]);
    return TS_OK;
}

/* Defaults: training, unconstrained memory, the lazy search, k and N left to the command. */
static void ts_sweep_grid_defaults(ts_sweep_grid *g)
{
    static const long zero = 0, none = -1;
    static const char *const lazy = "lazy";
    g->defaults[AX_INFER] = (ts_sweep_axis){1, (long *)&zero, NULL, NULL};
    g->defaults[AX_MEMORY] = (ts_sweep_axis){1, (long *)&none, NULL, NULL};
    g->defaults[AX_NMICROS] = (ts_sweep_axis){1, (long *)&zero, NULL, NULL};
    g->defaults[AX_MICRO_BATCHES] = (ts_sweep_axis){1, (long *)&zero, NULL, NULL};
    g->defaults[AX_METHODS] = (ts_sweep_axis){1, NULL, (const char **)&lazy, NULL};
    g->defaults[AX_NDEVS] =
        (ts_sweep_axis){1, (long *)&zero, NULL, NULL}; /* only files go without ndevs */
    for (int a = 0; a < AX_N; a++)
        g->use[a] = g->ax[a].n ? &g->ax[a] : &g->defaults[a];
}

/* Each placement resolved (a file is loaded now, so that a bad one stops the sweep). */
static int ts_sweep_grid_placements(const ts_sweep_spec *s, ts_sweep_grid *g, const char *where,
                                    ts_err *e)
{
    char w[TS_ERRLEN];
    int n = g->ax[AX_PLACEMENTS].n;
    if (!(g->refs = calloc((size_t)n, sizeof *g->refs)))
        return ts_fail(e, TS_ESYS, "%s: out of memory", where);
    bool any_builtin = false;
    for (int i = 0; i < n; i++) {
        if (g->is_point)
            snprintf(w, sizeof w, "%s.placement", where);
        else
            snprintf(w, sizeof w, "%s.placements[%d]", where, i);
        if (ts_sweep_placement_resolve(s->path, g->ax[AX_PLACEMENTS].str[i], w, &g->refs[i], e))
            return e->code;
        any_builtin |= g->refs[i].info != NULL;
    }
    if (any_builtin && !g->ax[AX_NDEVS].n)
        return ts_fail(e, TS_EINPUT, "%s: built-in placements need '%s' (device counts)", where,
                       g->is_point ? ax_point_names[AX_NDEVS] : ax_names[AX_NDEVS]);
    return TS_OK;
}

/* p takes the per-device capacities v (as "9,4,4,4", and the largest as its memory); the list
 * must have one per device of the point. */
static int ts_sweep_memory_list(json_t *v, ts_sweep_point *p, const char *where, ts_err *e)
{
    size_t n = json_array_size(v);
    if (p->ndevs > 0 && n != (size_t)p->ndevs) {
        int rc = ts_fail(e, TS_EINPUT,
                         "%s: memory lists %zu capacities for %d devices (give one for every "
                         "device, or one per device)",
                         where, n, p->ndevs);
        ts_sweep_point_free(p);
        return rc;
    }
    p->memory = 0;
    if (!(p->memory_list = malloc(n * 12 + 1))) {
        ts_sweep_point_free(p);
        return ts_fail(e, TS_ESYS, "%s: out of memory", where);
    }
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        long c = (long)json_integer_value(json_array_get(v, i));
        at += (size_t)snprintf(p->memory_list + at, 12, "%s%ld", i ? "," : "", c);
        p->memory = c > p->memory ? c : p->memory;
    }
    return TS_OK;
}

/* The point at one position of the odometer. A file fixes its own device count and variant; a
 * baseline fixes its own memory use and repetend; modulo finds k itself and full has no
 * repetend. Those axes collapse for them (duplicates are merged by spec_add). */
static int ts_sweep_grid_point(const ts_sweep_grid *g, const int idx[AX_N], ts_sweep_point *p,
                               const char *where, ts_err *e)
{
    const ts_sweep_placement_ref *r = &g->refs[idx[AX_PLACEMENTS]];
    memset(p, 0, sizeof *p);
    p->is_file = r->path != NULL;
    p->placement =
        ts_sweep_xstrdup(p->is_file ? r->path : g->ax[AX_PLACEMENTS].str[idx[AX_PLACEMENTS]]);
    p->method = ts_sweep_xstrdup(g->use[AX_METHODS]->str[idx[AX_METHODS]]);
    if (!p->placement || !p->method) {
        ts_sweep_point_free(p);
        return ts_fail(e, TS_ESYS, "%s: out of memory", where);
    }
    bool baseline = ts_sweep_method_is_baseline(p->method);
    ts_method m;
    bool fixed_k = baseline || (!ts_method_parse(p->method, &m) && ts_methods[m].fixed_k);
    p->ndevs = p->is_file ? r->file_ndevs : (int)g->use[AX_NDEVS]->num[idx[AX_NDEVS]];
    p->infer = p->is_file ? false : g->use[AX_INFER]->num[idx[AX_INFER]] != 0;
    p->memory = baseline ? -1 : g->use[AX_MEMORY]->num[idx[AX_MEMORY]];
    if (p->memory == -2 &&
        ts_sweep_memory_list(g->use[AX_MEMORY]->list[idx[AX_MEMORY]], p, where, e))
        return e->code;
    p->nmicros = fixed_k ? 0 : (int)g->use[AX_NMICROS]->num[idx[AX_NMICROS]];
    p->micro_batches = g->use[AX_MICRO_BATCHES]->num[idx[AX_MICRO_BATCHES]];
    /* the options are the search's: a grid's baselines go without them, a point may not */
    if (baseline && g->options && g->is_point) {
        int rc = ts_fail(e, TS_EINPUT, "%s.options: a baseline ('%s') takes no search options",
                         where, p->method);
        ts_sweep_point_free(p);
        return rc;
    }
    if (!baseline && ts_sweep_options_apply(g->options, p, where, e)) {
        ts_sweep_point_free(p);
        return e->code;
    }
    if (!(p->id = ts_sweep_make_id(p))) {
        ts_sweep_point_free(p);
        return ts_fail(e, TS_ESYS, "%s: out of memory", where);
    }
    return TS_OK;
}

/* A built-in's device count must be one it takes. */
static int ts_sweep_check_ndevs(const ts_sweep_placement_ref *r, const ts_sweep_point *p,
                                const char *where, ts_err *e)
{
    const ts_builtin_info *in = r->info;
    if (!in || (p->ndevs >= in->min_devs && p->ndevs <= in->max_devs &&
                (in->step_devs <= 1 || p->ndevs % in->step_devs == 0)))
        return TS_OK;
    return ts_fail(e, TS_EINPUT,
                   "%s: placement '%s' takes device counts in [%d, %d] that are multiples of %d, "
                   "not %d",
                   where, in->name, in->min_devs, in->max_devs,
                   in->step_devs > 1 ? in->step_devs : 1, p->ndevs);
}

/* A baseline must fit its placement (and N): the rule is checked here, not when the point runs,
 * so that a spec with a misplaced baseline is refused before anything runs. */
static int ts_sweep_check_baseline(const ts_sweep_point *p, const char *where, ts_err *e)
{
    if (!ts_sweep_method_is_baseline(p->method))
        return TS_OK;
    ts_placement *pl = NULL;
    ts_err le = {0};
    ts_builtin_opts bo = {p->ndevs, p->infer, 0};
    int rc = p->is_file ? ts_placement_load(p->placement, &pl, &le)
                        : ts_builtin_make(p->placement, &bo, &pl, &le);
    if (!rc)
        rc = ts_baseline_fits(p->method, pl, (int)p->micro_batches, &le);
    ts_placement_free(pl);
    if (rc)
        return ts_fail(e, TS_EINPUT, "%s: point '%s': %s", where, p->id, le.msg);
    return TS_OK;
}

/* Expands one grid (or one explicit point: every axis a single value) into the spec's points,
 * every combination once: an odometer over the axes, the last axis turning fastest. */
static int ts_sweep_expand(ts_sweep_spec *s, json_t *obj, const char *where, bool is_point,
                           ts_err *e)
{
    ts_sweep_grid g;
    memset(&g, 0, sizeof g);
    g.is_point = is_point;
    int rc = ts_sweep_grid_parse(obj, where, &g, e);
    if (!rc) {
        ts_sweep_grid_defaults(&g);
        rc = ts_sweep_grid_placements(s, &g, where, e);
    }
    int idx[AX_N] = {0};
    while (!rc) {
        ts_sweep_point p;
        if ((rc = ts_sweep_grid_point(&g, idx, &p, where, e)))
            break;
        rc = ts_sweep_check_ndevs(&g.refs[idx[AX_PLACEMENTS]], &p, where, e);
        if (!rc)
            rc = ts_sweep_check_baseline(&p, where, e);
        if (rc) {
            ts_sweep_point_free(&p);
            break;
        }
        if ((rc = ts_sweep_spec_add(s, &p, where, e)))
            break;
        int a = AX_N - 1;
        while (a >= 0 && ++idx[a] == g.use[a]->n)
            idx[a--] = 0;
        if (a < 0)
            break;
    }
    ts_sweep_grid_free(&g);
    return rc;
}

static const char *ts_sweep_base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* The spec's own keys: format, name, description, time_limit (grid and points are expanded). */
static int ts_sweep_spec_header(ts_sweep_spec *s, json_t *j, const char *path, ts_err *e)
{
    const char *key;
    json_t *v;
    json_object_foreach(j, key, v)
    {
        if (strcmp(key, "format") && strcmp(key, "name") && strcmp(key, "description") &&
            strcmp(key, "grid") && strcmp(key, "points") && strcmp(key, "time_limit"))
            return ts_fail(e, TS_EINPUT,
                           "%s: unknown key '%s' (expected format, name, description, grid, "
                           "points, time_limit)",
                           path, key);
    }
    json_t *fmt = json_object_get(j, "format");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), TS_SWEEP_FORMAT))
        return ts_fail(e, TS_EINPUT, "%s: format: expected \"%s\"", path, TS_SWEEP_FORMAT);
    json_t *name = json_object_get(j, "name");
    if (name && (!json_is_string(name) || !json_string_length(name)))
        return ts_fail(e, TS_EINPUT, "%s: name: expected a non-empty string", path);
    json_t *desc = json_object_get(j, "description");
    if (desc && !json_is_string(desc))
        return ts_fail(e, TS_EINPUT, "%s: description: expected a string", path);
    if (!(s->name = ts_sweep_xstrdup(name ? json_string_value(name) : ts_sweep_base_name(path))))
        return ts_fail(e, TS_ESYS, "%s: out of memory", path);
    json_t *tl = json_object_get(j, "time_limit");
    if (tl) {
        if (!json_is_number(tl) || json_number_value(tl) < TS_TIME_LIMIT_MIN ||
            json_number_value(tl) > TS_TIME_LIMIT_MAX)
            return ts_fail(e, TS_EINPUT, "%s: time_limit: expected seconds in [%g, %g]", path,
                           TS_TIME_LIMIT_MIN, TS_TIME_LIMIT_MAX);
        s->time_limit = json_number_value(tl);
    }
    return TS_OK;
}

/* "grid": one grid or a list of grids; "points": a list of explicit points. */
static int ts_sweep_spec_points(ts_sweep_spec *s, json_t *j, const char *path, ts_err *e)
{
    char w[TS_ERRLEN];
    json_t *ts_sweep_grid = json_object_get(j, "grid"), *points = json_object_get(j, "points");
    if (!ts_sweep_grid && !points)
        return ts_fail(e, TS_EINPUT, "%s: no \"grid\" and no \"points\": nothing to run", path);
    if (ts_sweep_grid && json_is_array(ts_sweep_grid) && !json_array_size(ts_sweep_grid))
        return ts_fail(e, TS_EINPUT, "%s: grid: empty list of grids", path);
    if (ts_sweep_grid && json_is_array(ts_sweep_grid)) {
        for (size_t i = 0; i < json_array_size(ts_sweep_grid); i++) {
            snprintf(w, sizeof w, "%s: grid[%zu]", path, i);
            if (ts_sweep_expand(s, json_array_get(ts_sweep_grid, i), w, false, e))
                return e->code;
        }
    } else if (ts_sweep_grid) {
        snprintf(w, sizeof w, "%s: grid", path);
        if (ts_sweep_expand(s, ts_sweep_grid, w, false, e))
            return e->code;
    }
    if (points && !json_is_array(points))
        return ts_fail(e, TS_EINPUT, "%s: points: expected a list of objects", path);
    for (size_t i = 0; points && i < json_array_size(points); i++) {
        snprintf(w, sizeof w, "%s: points[%zu]", path, i);
        if (ts_sweep_expand(s, json_array_get(points, i), w, true, e))
            return e->code;
    }
    if (!s->npoints)
        return ts_fail(e, TS_EINPUT, "%s: the spec has no points", path);
    return TS_OK;
}

int ts_sweep_spec_load(const char *path, ts_sweep_spec **out, ts_err *e)
{
    *out = NULL;
    json_t *j = NULL;
    if (ts_json_read_file(path, &j, e))
        return e->code;
    int rc;
    ts_sweep_spec *s = calloc(1, sizeof *s);
    if (!s || !(s->path = ts_sweep_xstrdup(path)))
        rc = ts_fail(e, TS_ESYS, "%s: out of memory", path);
    else if (!json_is_object(j))
        rc = ts_fail(e, TS_EINPUT, "%s: expected a JSON object", path);
    else if (!(rc = ts_sweep_spec_header(s, j, path, e)))
        rc = ts_sweep_spec_points(s, j, path, e);
    json_decref(j);
    if (rc) {
        ts_sweep_spec_free(s);
        return rc;
    }
    *out = s;
    return TS_OK;
}

void ts_sweep_spec_free(ts_sweep_spec *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->npoints; i++)
        ts_sweep_point_free(&s->points[i]);
    free(s->points);
    free(s->slots);
    free(s->path);
    free(s->name);
    free(s);
}

/* "none", one capacity, or the list of one per device. */
static json_t *ts_sweep_point_memory_json(const ts_sweep_point *p)
{
    if (!p->memory_list)
        return p->memory < 0 ? json_string("none") : json_integer(p->memory);
    json_t *a = json_array();
    for (const char *s = p->memory_list; a && *s; s += strcspn(s, ",") + (s[strcspn(s, ",")] != 0))
        json_array_append_new(a, json_integer(strtol(s, NULL, 10)));
    return a;
}

json_t *ts_sweep_point_params(const ts_sweep_point *p)
{
    json_t *j = json_pack("{s:s, s:i, s:b, s:o, s:o, s:s, s:o}", "placement", p->placement, "ndevs",
                          p->ndevs, "infer", p->infer, "memory", ts_sweep_point_memory_json(p),
                          "nmicros", p->nmicros > 0 ? json_integer(p->nmicros) : json_null(),
                          "method", p->method, "micro_batches",
                          p->micro_batches > 0 ? json_integer(p->micro_batches) : json_null());
    if (j && p->options)
        json_object_set(j, "options", p->options);
    return j;
}
