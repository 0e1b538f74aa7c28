/* The command line over the operations layer: getopt's table and --help generated from an
 * operation's option table, and each flag's argument turned into the request's field as the
 * table types it (so that the command line sends the very request Python and the explorer send). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_ops.h"

/* getopt values of the table's rows: past every character and the placement's ids */
#define TS_CLI_OP_VAL 3000
#define TS_CLI_OP_MAX 64
#define TS_CLI_HELP_WIDTH 80
#define TS_CLI_HELP_INDENT 23

/* text word by word from column indent (the cursor stands there), wrapped at the width. */
static void ts_cli_help_wrap(const char *text, int indent)
{
    int col = indent;
    for (const char *s = text; *s;) {
        size_t w = strcspn(s, " ");
        if (col > indent && col + 1 + (int)w > TS_CLI_HELP_WIDTH) {
            printf("\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            putchar(' ');
            col++;
        }
        col += printf("%.*s", (int)w, s);
        s += w;
        while (*s == ' ')
            s++;
    }
    printf("\n");
}

void ts_cli_help_item(const char *head, const char *text)
{
    int col = printf("%s", head);
    if (col > TS_CLI_HELP_INDENT - 2) {
        printf("\n");
        col = 0;
    }
    printf("%*s", TS_CLI_HELP_INDENT - col, "");
    ts_cli_help_wrap(text, TS_CLI_HELP_INDENT);
}

/* The argument's name in --help: the row's, or its Python name in capitals. */
static void ts_cli_op_argname(const ts_op_option *o, char *buf, size_t len)
{
    const char *src = o->arg ? o->arg : o->py ? o->py : o->key;
    size_t i = 0;
    for (; src[i] && i + 1 < len; i++)
        buf[i] = o->arg ? src[i] : (char)(src[i] >= 'a' && src[i] <= 'z' ? src[i] - 32 : src[i]);
    buf[i] = '\0';
}

static bool ts_cli_op_takes(const ts_op_option *o)
{
    return o->flag && (o->fronts & TS_FRONT_CLI);
}

static bool ts_cli_op_has_arg(const ts_op_option *o)
{
    return o->type != TS_OPV_FLAG && o->type != TS_OPV_HOOK;
}

/* The table's caps: measured constants, not options, so that a user sees where work stops. */
static void ts_cli_op_print_caps(const ts_op *op)
{
    bool head = false;
    for (int i = 0; i < op->nopts; i++) {
        const ts_op_option *o = &op->opts[i];
        if (o->type != TS_OPV_CAP)
            continue;
        if (!head) {
            printf("\n");
            ts_cli_help_wrap("caps (measured constants, not options: where a step stops, is "
                             "skipped or is refused):",
                             0);
        }
        head = true;
        char name[64], text[512];
        snprintf(name, sizeof name, "  %s", o->key);
        snprintf(text, sizeof text, "%.15g %s: %s", o->max, o->arg, o->help);
        ts_cli_help_item(name, text);
    }
}

static void ts_cli_op_print_help(const char *cmd, const ts_op *op, const ts_cli_op_help *h)
{
    printf("usage: tessel %s %s\n\n", cmd, h->usage);
    ts_cli_help_wrap(h->intro, 0);
    if (op->subject == TS_OP_ON_PLACEMENT)
        printf("\n" TS_CLI_PLACEMENT_HELP);
    else if (op->subject == TS_OP_ON_SCHEDULE)
        printf("\n  SCHED                a schedule file (tessel-schedule/1; - reads stdin)\n");
    else
        printf("\n");
    for (int i = 0; i < op->nopts; i++) {
        const ts_op_option *o = &op->opts[i];
        if (!ts_cli_op_takes(o))
            continue;
        char head[96], arg[48] = "";
        if (ts_cli_op_has_arg(o))
            ts_cli_op_argname(o, arg, sizeof arg);
        if (o->shortflag)
            snprintf(head, sizeof head, "  -%c, --%s%s%s", o->shortflag, o->flag, *arg ? " " : "",
                     arg);
        else
            snprintf(head, sizeof head, "  --%s%s%s", o->flag, *arg ? " " : "", arg);
        char text[1024];
        if (o->type == TS_OPV_INT || o->type == TS_OPV_NUM || o->type == TS_OPV_FACTORS)
            snprintf(text, sizeof text, "%s (%.15g to %.15g)", o->help, o->min, o->max);
        else
            snprintf(text, sizeof text, "%s", o->help);
        ts_cli_help_item(head, text);
    }
    ts_cli_help_item("  -h, --help", "this text");
    if (h->lists)
        h->lists();
    ts_cli_op_print_caps(op);
    printf("\n%s", h->outro);
}

/* The request's field for one flag's argument, typed by its row. */
static int ts_cli_op_value(const char *cmd, const ts_op_option *o, const char *arg, json_t **v)
{
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", o->flag);
    long l;
    double d;
    *v = NULL;
    switch (o->type) {
    case TS_OPV_INT:
        if (ts_cli_parse_long(cmd, flag, arg, (long)o->min, (long)o->max, &l))
            return 2;
        *v = json_integer(l);
        break;
    case TS_OPV_NUM:
        if (ts_cli_parse_double(cmd, flag, arg, o->min, o->max, &d))
            return 2;
        *v = json_real(d);
        break;
    case TS_OPV_MEMORY: {
        ts_cli_memory m = {0};
        /* a list refused part way holds what it had read */
        if (ts_cli_parse_memory(cmd, arg, &m)) {
            ts_cli_memory_free(&m);
            return 2;
        }
        *v = !m.has_memory ? json_string("none")
             : m.n == 1    ? json_integer(m.cap[0])
                           : ts_cli_long_array(m.cap, m.n);
        ts_cli_memory_free(&m);
        break;
    }
    case TS_OPV_FLAG:
    case TS_OPV_HOOK: *v = json_true(); break;
    default: *v = json_string(arg); break;
    }
    return *v ? 0 : ts_cli_usage_error(cmd, "%s: out of memory", flag);
}

/* One NAME=F of a FACTORS flag, added to the request's object of factors (the flag repeats). */
static int ts_cli_op_factor(const char *cmd, const ts_op_option *o, const char *arg, json_t *req)
{
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", o->flag);
    const char *eq = strrchr(arg, '=');
    if (!eq || eq == arg)
        return ts_cli_usage_error(cmd, "%s expects %s, got '%s'", flag, o->arg, arg);
    double d;
    if (ts_cli_parse_double(cmd, flag, eq + 1, o->min, o->max, &d))
        return 2;
    json_t *obj = json_object_get(req, o->key);
    if (!obj && json_object_set_new(req, o->key, obj = json_object()))
        return ts_cli_usage_error(cmd, "%s: out of memory", flag);
    char *id = strndup(arg, (size_t)(eq - arg));
    int rc = id ? json_object_set_new(obj, id, json_real(d)) : -1;
    free(id);
    return rc ? ts_cli_usage_error(cmd, "%s: out of memory", flag) : 0;
}

/* getopt's table from op's rows the command line takes: rows[i] is the row of value
 * TS_CLI_OP_VAL + i. */
static int ts_cli_op_options(const ts_op *op, struct option *opts, char *shortopts, size_t slen,
                             const ts_op_option **rows)
{
    static const struct option head[] = {TS_CLI_PLACEMENT_OPTIONS};
    int n = 0;
    /* the placement's own options, for an operation on a placement */
    for (size_t i = 0; op->subject == TS_OP_ON_PLACEMENT && i < sizeof head / sizeof head[0]; i++)
        opts[n++] = head[i];
    int k = 0;
    snprintf(shortopts, slen, "h");
    for (int i = 0; i < op->nopts && k < TS_CLI_OP_MAX; i++) {
        const ts_op_option *o = &op->opts[i];
        if (!ts_cli_op_takes(o))
            continue;
        int has = ts_cli_op_has_arg(o) ? required_argument : no_argument;
        rows[k] = o;
        opts[n++] = (struct option){o->flag, has, 0, TS_CLI_OP_VAL + k};
        if (o->shortflag)
            snprintf(shortopts + strlen(shortopts), slen - strlen(shortopts), "%c%s", o->shortflag,
                     has == required_argument ? ":" : "");
        k++;
    }
    opts[n++] = (struct option){"help", no_argument, 0, 'h'};
    opts[n] = (struct option){0, 0, 0, 0};
    return k;
}

int ts_cli_op_parse(const char *cmd, const ts_op *op, const ts_cli_op_help *help, int argc,
                    char **argv, ts_cli_op_args *a)
{
    return ts_cli_op_parse_arg(cmd, op, help, NULL, argc, argv, a);
}

int ts_cli_op_parse_arg(const char *cmd, const ts_op *op, const ts_cli_op_help *help,
                        const char *first_key, int argc, char **argv, ts_cli_op_args *a)
{
    struct option opts[TS_CLI_OP_MAX + 8];
    const ts_op_option *rows[TS_CLI_OP_MAX];
    char shortopts[2 * TS_CLI_OP_MAX + 4];
    int nrows = ts_cli_op_options(op, opts, shortopts, sizeof shortopts, rows);
    memset(a, 0, sizeof *a);
    if (!(a->req = json_object()))
        return ts_cli_usage_error(cmd, "out of memory");
    int c;
    bool on_placement = op->subject == TS_OP_ON_PLACEMENT;
    while ((c = on_placement ? ts_cli_getopt_placement(cmd, argc, argv, shortopts, opts, &a->pl)
                             : ts_cli_getopt(cmd, argc, argv, shortopts, opts)) != -1) {
        const ts_op_option *o = NULL;
        for (int k = 0; k < nrows && !o; k++)
            if (c == TS_CLI_OP_VAL + k || (rows[k]->shortflag && c == rows[k]->shortflag))
                o = rows[k];
        if (c == -2)
            return 2;
        if (c == 'h') {
            ts_cli_op_print_help(cmd, op, help);
            return -1;
        }
        json_t *v;
        if (!o)
            return ts_cli_usage_error(cmd, "unexpected option");
        if (o->type == TS_OPV_FACTORS) {
            if (ts_cli_op_factor(cmd, o, optarg, a->req))
                return 2;
            continue;
        }
        if (ts_cli_op_value(cmd, o, optarg, &v))
            return 2;
        if (o->type == TS_OPV_TEXTS && !json_object_get(a->req, o->key))
            json_object_set_new(a->req, o->key, json_array());
        if (o->type == TS_OPV_TEXTS)
            json_array_append_new(json_object_get(a->req, o->key), v);
        else
            json_object_set_new(a->req, o->key, v);
    }
    if (first_key && optind < argc)
        json_object_set_new(a->req, first_key, json_string(argv[optind++]));
    if (!on_placement) {
        a->args = argv + optind;
        a->nargs = argc - optind;
        return 0;
    }
    /* a schedule's file is the caller's to load (ts_cli_schedule_arg) */
    return op->subject == TS_OP_ON_PLACEMENT ? ts_cli_placement_arg(cmd, argc, argv, &a->pl) : 0;
}

const char *ts_cli_op_take_text(ts_cli_op_args *a, const char *key, char *buf, size_t len)
{
    json_t *v = json_object_get(a->req, key);
    if (!json_is_string(v))
        return NULL;
    snprintf(buf, len, "%s", json_string_value(v));
    json_object_del(a->req, key);
    return buf;
}

bool ts_cli_op_take_flag(ts_cli_op_args *a, const char *key)
{
    bool given = json_is_true(json_object_get(a->req, key));
    json_object_del(a->req, key);
    return given;
}
