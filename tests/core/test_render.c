/* SVG timelines: well-formed XML (checked by a small parser below: balanced tags, quoted
 * attributes, only the five entities or character references), one box per instance and device,
 * labels only where they fit, the repetend window shaded. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ts_baseline.h"
#include "ts_render.h"

typedef struct {
    int elements; /* all elements */
    int inst; /* <g class="inst"> */
    int boxes; /* <rect class="box"> */
    int texts_in_inst; /* <text> inside an instance group: micro-batch labels */
    int repetend; /* <g class="repetend"> */
    int roots;
} xml_stats;

static bool entity_ok(const char *s, size_t *len)
{
    static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (int i = 0; i < 5; i++)
        if (!strncmp(s, ents[i], strlen(ents[i]))) {
            *len = strlen(ents[i]);
            return true;
        }
    if (s[1] == '#') {
        size_t i = 2;
        if (s[i] == 'x')
            i++;
        size_t d0 = i;
        while (isxdigit((unsigned char)s[i]))
            i++;
        if (i > d0 && s[i] == ';') {
            *len = i + 1;
            return true;
        }
    }
    return false;
}

/* Returns 0 when doc is well-formed, else the offset + 1 of the first problem. */
static long xml_check(const char *doc, xml_stats *st)
{
    char stack[64][32];
    int depth = 0, inst_depth = -1;
    memset(st, 0, sizeof *st);
    const char *s = doc;
    if (!strncmp(s, "<?xml", 5)) {
        const char *e = strstr(s, "?>");
        if (!e)
            return 1;
        s = e + 2;
    }
    while (*s) {
        if (*s == '&') {
            size_t len;
            if (!entity_ok(s, &len))
                return s - doc + 1;
            s += len;
            continue;
        }
        if (*s == '>')
            return s - doc + 1;
        if (*s != '<') {
            if (depth == 0 && !isspace((unsigned char)*s))
                return s - doc + 1; /* text outside the root */
            s++;
            continue;
        }
        bool closing = s[1] == '/';
        const char *n = s + (closing ? 2 : 1);
        size_t nl = 0;
        while (isalnum((unsigned char)n[nl]) || n[nl] == '-' || n[nl] == ':' || n[nl] == '_')
            nl++;
        if (nl == 0 || nl >= 32)
            return s - doc + 1;
        const char *p = n + nl;
        if (closing) {
            while (isspace((unsigned char)*p))
                p++;
            if (*p != '>' || depth == 0 || strlen(stack[depth - 1]) != nl ||
                strncmp(stack[depth - 1], n, nl))
                return s - doc + 1;
            depth--;
            if (depth == inst_depth)
                inst_depth = -1;
            s = p + 1;
            continue;
        }
        /* attributes: name="value" with no '<' and only valid entities in the value */
        bool is_inst = false, is_box = false, is_rep = false;
        for (;;) {
            while (isspace((unsigned char)*p))
                p++;
            if (*p == '>' || (*p == '/' && p[1] == '>'))
                break;
            const char *an = p;
            while (isalnum((unsigned char)*p) || *p == '-' || *p == ':' || *p == '_')
                p++;
            if (p == an || *p != '=' || (p[1] != '"' && p[1] != '\''))
                return p - doc + 1;
            char q = p[1];
            size_t anl = (size_t)(p - an);
            const char *v = p + 2, *ve = v;
            while (*ve && *ve != q) {
                if (*ve == '<')
                    return ve - doc + 1;
                if (*ve == '&') {
                    size_t len;
                    if (!entity_ok(ve, &len))
                        return ve - doc + 1;
                    ve += len;
                    continue;
                }
                ve++;
            }
            if (!*ve)
                return v - doc + 1;
            if (anl == 5 && !strncmp(an, "class", 5)) {
                size_t vl = (size_t)(ve - v);
                is_inst = vl == 4 && !strncmp(v, "inst", 4);
                is_box = vl == 3 && !strncmp(v, "box", 3);
                is_rep = vl == 8 && !strncmp(v, "repetend", 8);
            }
            p = ve + 1;
        }
        st->elements++;
        if (depth == 0)
            st->roots++;
        if (nl == 1 && *n == 'g' && is_inst) {
            st->inst++;
            if (inst_depth >= 0)
                return s - doc + 1; /* instance groups do not nest */
            inst_depth = depth;
        }
        if (nl == 1 && *n == 'g' && is_rep)
            st->repetend++;
        if (nl == 4 && !strncmp(n, "rect", 4) && is_box)
            st->boxes++;
        if (nl == 4 && !strncmp(n, "text", 4) && inst_depth >= 0)
            st->texts_in_inst++;
        if (*p == '/') {
            s = p + 2;
            continue;
        }
        if (depth == 64)
            return s - doc + 1;
        memcpy(stack[depth], n, nl);
        stack[depth][nl] = '\0';
        depth++;
        s = p + 1;
    }
    return depth == 0 && st->roots == 1 ? 0 : (long)strlen(doc) + 1;
}

static char *render(const ts_schedule *s, const ts_render_opts *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    ts_err e = {0};
    assert_int_equal(ts_render_svg(s, o, f, &e), TS_OK);
    fclose(f);
    return buf;
}

static ts_schedule *baseline(const char *kind, const char *name, int D, int n)
{
    ts_builtin_opts bo = {.ndevs = D};
    ts_placement *p = NULL;
    ts_schedule *s = NULL;
    ts_err e = {0};
    assert_int_equal(ts_builtin_make(name, &bo, &p, &e), TS_OK);
    assert_int_equal(ts_baseline_make(kind, p, n, &s, &e), TS_OK);
    ts_placement_free(p);
    return s;
}

static int device_slots(const ts_schedule *s)
{
    int n = 0;
    for (int i = 0; i < s->nentries; i++)
        n += s->placement->blocks[s->entries[i].block].ndevices;
    return n;
}

static void check_doc(const ts_schedule *s, const char *doc, xml_stats *st)
{
    long bad = xml_check(doc, st);
    if (bad)
        fail_msg("not well-formed at offset %ld: %.60s", bad - 1, doc + (bad > 20 ? bad - 20 : 0));
    assert_int_equal(st->inst, s->nentries);
    assert_int_equal(st->boxes, device_slots(s));
}

static void test_four_devices(void **state)
{
    (void)state;
    ts_schedule *s = baseline("1f1b", "vshape", 4, 8);
    char *doc = render(s, NULL);
    xml_stats st;
    check_doc(s, doc, &st);
    assert_int_equal(st.inst, 4 * 2 * 8);
    /* boxes are wide here: every box carries its micro-batch label */
    assert_int_equal(st.texts_in_inst, st.boxes);
    assert_int_equal(st.repetend, 0);
    assert_non_null(strstr(doc, ">forward</text>"));
    assert_non_null(strstr(doc, ">backward</text>"));
    free(doc);
    ts_schedule_free(s);
}

static void test_thirty_two_devices(void **state)
{
    (void)state;
    ts_schedule *s = baseline("1f1b", "vshape", 32, 256);
    char *doc = render(s, NULL);
    xml_stats st;
    check_doc(s, doc, &st);
    assert_int_equal(st.inst, 32 * 2 * 256);
    /* forward boxes (span 1) are far too narrow for a label at this scale */
    assert_true(st.texts_in_inst < st.boxes);
    free(doc);
    ts_schedule_free(s);
    /* sharded blocks: one group per instance, one box per device it occupies */
    s = baseline("1f1b", "mshape", 8, 16);
    doc = render(s, NULL);
    check_doc(s, doc, &st);
    assert_true(st.boxes > st.inst);
    assert_non_null(strstr(doc, "on several devices"));
    free(doc);
    ts_schedule_free(s);
}

static void test_repetend_and_escaping(void **state)
{
    (void)state;
    ts_placement *p = ts_placement_new("a<b & \"c\"", 2);
    int d0 = 0, d1 = 1;
    int f = ts_placement_add_block(p, "F&0", TS_KIND_FORWARD, 1, 1, 1, &d0);
    int b = ts_placement_add_block(p, "B<1>", TS_KIND_BACKWARD, 2, -1, 1, &d1);
    ts_placement_add_edge(p, f, b, 0, 0);
    ts_schedule *s = ts_schedule_new(p, 4);
    for (int m = 0; m < 4; m++) {
        ts_schedule_add(s, f, m, 2 * m);
        ts_schedule_add(s, b, m, 2 * m + 1);
    }
    int mids[2] = {1, 1};
    assert_int_equal(ts_schedule_set_repetend(s, 2, 4, mids), 0);
    ts_render_opts o = {.px_per_step = 40, .title = "title <&>"};
    char *doc = render(s, &o);
    xml_stats st;
    check_doc(s, doc, &st);
    assert_int_equal(st.repetend, 1);
    assert_non_null(strstr(doc, "period 2"));
    assert_non_null(strstr(doc, "title &lt;&amp;&gt;"));
    assert_non_null(strstr(doc, "data-block=\"B&lt;1&gt;\""));
    free(doc);
    /* the default title names the placement, escaped */
    doc = render(s, NULL);
    check_doc(s, doc, &st);
    assert_non_null(strstr(doc, "a&lt;b &amp; &quot;c&quot;"));
    free(doc);
    ts_schedule_free(s);
    ts_placement_free(p);
}

/* The checker itself must reject what is not well-formed. */
static void test_checker_rejects(void **state)
{
    (void)state;
    xml_stats st;
    assert_int_equal(xml_check("<svg><g></g></svg>", &st), 0);
    assert_true(xml_check("<svg><g></svg></g>", &st) != 0);
    assert_true(xml_check("<svg><g></svg>", &st) != 0);
    assert_true(xml_check("<svg a=b></svg>", &st) != 0);
    assert_true(xml_check("<svg>a & b</svg>", &st) != 0);
    assert_true(xml_check("<svg a=\"<\"></svg>", &st) != 0);
    assert_true(xml_check("<svg/><svg/>", &st) != 0);
}

static void test_file_errors(void **state)
{
    (void)state;
    ts_schedule *s = baseline("gpipe", "vshape", 2, 2);
    ts_err e = {0};
    assert_int_equal(ts_render_svg_file(s, NULL, "/nonexistent-dir/x.svg", &e), TS_ESYS);
    assert_non_null(strstr(e.msg, "/nonexistent-dir/x.svg"));
    ts_schedule_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_four_devices),          cmocka_unit_test(test_thirty_two_devices),
        cmocka_unit_test(test_repetend_and_escaping), cmocka_unit_test(test_checker_rejects),
        cmocka_unit_test(test_file_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
