/* The operations layer: what the command line, the explorer and the Python package call. Each
 * operation takes one request (a JSON object whose fields its option table names) and returns
 * one result; the front ends only turn their own input into the request and print the result.
 *
 * An operation's options are one table (ts_op_option rows): the command line's flags and their
 * --help, the explorer's request fields and the Python keyword arguments all come from it, and
 * tests/python/test_ops_tables.py walks every table against the three front ends. A row a front
 * end does not take says why (why_not). */
#ifndef TS_OPS_H
#define TS_OPS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include "ts_error.h"
#include "ts_placement.h"
#include "ts_schedule.h"

/* The front ends, as bits of ts_op_option.fronts. */
typedef enum {
    TS_FRONT_CLI = 1,
    TS_FRONT_SERVE = 2,
    TS_FRONT_PY = 4,
} ts_front;
#define TS_FRONT_ALL (TS_FRONT_CLI | TS_FRONT_SERVE | TS_FRONT_PY)

/* What an option's value is, in a request (JSON) and on the command line. */
typedef enum {
    /* a whole number in [min, max] */
    TS_OPV_INT,
    /* a number in [min, max] */
    TS_OPV_NUM,
    /* true or false; on the command line, a flag without argument */
    TS_OPV_FLAG,
    /* a string */
    TS_OPV_TEXT,
    /* names: a list of strings, or one string of names separated by commas */
    TS_OPV_NAMES,
    /* a capacity per device: a number for every device, "none" (or null) for no limit, or a
     * list of one per device */
    TS_OPV_MEMORY,
    /* a front end's own object (a Python callback or token): never a JSON value */
    TS_OPV_HOOK,
    /* strings: a list of them; on the command line, the flag once per item */
    TS_OPV_TEXTS,
    /* a factor in [min, max] per name: an object {name: number}; on the command line NAME=F,
     * the flag repeated */
    TS_OPV_FACTORS,
    /* a cap of the operation's work: a measured constant (min = max = its value, arg its unit),
     * listed so that a user sees where the work stops; no front end sets it */
    TS_OPV_CAP,
    /* an object of another operation's fields (a sweep point's search options) */
    TS_OPV_FIELDS,
} ts_opv;

typedef struct {
    /* the request's field (the explorer's name too) */
    const char *key;
    /* the Python keyword argument (NULL: key) */
    const char *py;
    /* the command line's long flag without its dashes (NULL: none), and one letter (0: none) */
    const char *flag;
    int shortflag;
    ts_opv type;
    /* the accepted range of INT and NUM */
    double min, max;
    /* the argument's name in --help (NULL for a flag) */
    const char *arg;
    const char *help;
    /* the front ends that take it (TS_FRONT_* bits) */
    unsigned fronts;
    /* why a front end outside fronts does not (NULL when every one does) */
    const char *why_not;
} ts_op_option;

/* What an operation works on, which every front end gives its own way (a file or a built-in, a
 * Placement or Schedule object, a JSON object in the body): not a row of the table. */
typedef enum {
    TS_OP_ON_NOTHING,
    TS_OP_ON_PLACEMENT,
    TS_OP_ON_SCHEDULE,
    TS_OP_ON_MODEL,
} ts_op_subject;

typedef struct {
    const char *name;
    const char *summary;
    ts_op_subject subject;
    /* where each front end offers it: the subcommand, the Python callable under the package
     * ("search", "Schedule.validate"), the explorer's path and, for a job, its kind (NULL where a
     * front end has none; the table's rows then say why_not for that front) */
    const char *cli, *py, *serve_path, *serve_job;
    const ts_op_option *opts;
    int nopts;
} ts_op;

/* The operations with a table, by name ("search", ...); NULL when there is none. */
const ts_op *ts_ops_find(const char *name);
int ts_ops_count(void);
const ts_op *ts_ops_at(int i);
/* op's row for key, or NULL. */
const ts_op_option *ts_op_option_find(const ts_op *op, const char *key);
/* Every table as JSON: [{name, summary, subject, cli, py, serve_path, serve_job, options: [{key,
 * py, flag, short, type, min, max, arg, help, fronts: [cli, serve, python], why_not}]}] (what the
 * Python package and its test read).
 * NULL when out of memory. */
json_t *ts_ops_json(void);

/* How front f names option o in a message: "--time-limit", "time_limit", "request: field
 * 'time_limit'". Returns buf. */
const char *ts_op_field(const ts_op_option *o, ts_front f, char *buf, size_t len);
/* "NAME rest" as TS_EINPUT, NAME the field as front f names it (ts_op_field): every refusal of a
 * field's value. Returns TS_EINPUT. */
int ts_op_refuse(const ts_op_option *o, ts_front f, ts_err *e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Refuses a request that holds a field outside op's rows that front f takes, and outside extra
 * (NULL-terminated; may be NULL): one message naming the field. */
int ts_op_check_keys(const ts_op *op, json_t *req, ts_front f, const char *const *extra, ts_err *e);

/* ---- reading a request by its table (ops_read.c) ------------------------------------------ */

/* Each reads option `key` of op from req: *given false (and *out untouched) when absent or null;
 * a wrong type or a value outside the row's range is TS_EINPUT with a message that names the
 * field as front f does. */
int ts_op_read_num(const ts_op *op, const char *key, json_t *req, ts_front f, double *out,
                   bool *given, ts_err *e);
int ts_op_read_text(const ts_op *op, const char *key, json_t *req, ts_front f, const char **out,
                    bool *given, ts_err *e);
/* NAMES: a list of strings or a string of names separated by commas, as one string of names
 * separated by commas in *out (the caller frees; NULL when absent). */
int ts_op_read_names(const ts_op *op, const char *key, json_t *req, ts_front f, char **out,
                     ts_err *e);

/* A memory field as read: none, one capacity for every device, or one per device. */
typedef struct {
    /* the field was in the request (null and "none" count as given) */
    bool given;
    bool has_memory;
    /* 1 or ndevs entries, owned */
    int n;
    long *cap;
} ts_op_memory;

/* Reads MEMORY option key; the length of a list is checked against ndevs. */
int ts_op_read_memory(const ts_op *op, const char *key, json_t *req, ts_front f, int ndevs,
                      ts_op_memory *m, ts_err *e);
void ts_op_memory_free(ts_op_memory *m);
/* FACTORS: scale[b] (nblocks entries, set to 1 first) takes the factor of each block of p the
 * object names; *given counts them. An unknown block or a factor outside the row's range is
 * TS_EINPUT. */
int ts_op_read_factors(const ts_op *op, const char *key, json_t *req, ts_front f,
                       const ts_placement *p, double *scale, int *given, ts_err *e);
/* Each device's capacity (ndevs entries, the caller frees; NULL without a memory limit): the
 * request's, or the capacity the placement states when the request has none, or TS_EINPUT
 * ("memory is required") when neither does. */
int ts_op_memory_caps(const ts_op *op, const ts_op_memory *m, const ts_placement *p, ts_front f,
                      long **caps, bool *has_memory, ts_err *e);

/* ---- names, whole numbers, flags, required fields (ops_fields.c) ---------------------------- */

/* Reads TEXT option key of op as an owned copy (*out NULL when absent): a name must not be
 * empty nor hold a control character, so that messages quoting it stay one line. */
int ts_op_read_name(const ts_op *op, const char *key, json_t *req, ts_front f, char **out,
                    ts_err *e);
/* Reads INT option key into *out (untouched when absent). */
int ts_op_read_int(const ts_op *op, const char *key, json_t *req, ts_front f, int *out, ts_err *e);
/* Reads FLAG option key into *out (untouched when absent): true or false. */
int ts_op_read_flag(const ts_op *op, const char *key, json_t *req, ts_front f, bool *out,
                    ts_err *e);
/* Refuses a request without one of keys (NULL-terminated): the command line and Python name them
 * all ("--model, --hardware and --gpus are all required" and tail), the explorer the first one
 * missing ("request: missing field 'hardware'"). */
int ts_op_require(const ts_op *op, json_t *req, ts_front f, const char *const *keys,
                  const char *tail, ts_err *e);

/* Checks every field of obj (an object of op's fields, as a file gives them) against op's rows
 * that front f takes, outside reserved (NULL-terminated; may be NULL): an unknown field or a value
 * its row refuses is TS_EINPUT, the field named as the file names it. */
int ts_op_check_values(const ts_op *op, json_t *obj, ts_front f, const char *const *reserved,
                       ts_err *e);

/* The command-line arguments that send req to op (the inverse of ts_cli_op_parse): "--flag VALUE"
 * per field in the request's order (a FLAG's flag alone when true; a list joined by commas),
 * NULL-terminated and owned (ts_op_argv_free). TS_EINPUT, naming the field, for one the command
 * line does not take. */
int ts_op_argv(const ts_op *op, json_t *req, char ***out, ts_err *e);
void ts_op_argv_free(char **argv);

#endif
