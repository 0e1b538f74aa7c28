/* The command line over the operations layer: a command's flags, its --help and the request it
 * sends, all from the operation's option table (ts_ops.h). */
#ifndef TS_CLI_OPS_H
#define TS_CLI_OPS_H

#include "cli.h"
#include "ts_ops.h"

/* What the command line asked for: the placement and the request (the table's keys); for an
 * operation on no placement, the arguments after the options instead. */
typedef struct {
    ts_cli_placement pl;
    json_t *req;
    char **args;
    int nargs;
} ts_cli_op_args;

/* Text of a command's --help around the options the table gives. */
typedef struct {
    /* after "usage: tessel CMD ": the subject and the required options */
    const char *usage;
    /* what the command does (a paragraph) */
    const char *intro;
    /* prints lists the options refer to (methods, rows); may be NULL */
    void (*lists)(void);
    /* the last paragraphs: exit status and the like */
    const char *outro;
} ts_cli_op_help;

/* Parses argv by op's rows that the command line takes (and, for an operation on a placement,
 * the placement's shared options and file) into a->req (a flag of a TEXTS row once per item, its
 * values a list; the caller frees it with json_decref); an operation on a schedule leaves its
 * file at argv[optind] (ts_cli_schedule_arg). Returns 0, -1 after printing --help, or the exit
 * status after reporting a usage error. */
int ts_cli_op_parse(const char *cmd, const ts_op *op, const ts_cli_op_help *help, int argc,
                    char **argv, ts_cli_op_args *a);
/* The same, for a command with an argument before the placement file (`tessel baseline KIND`):
 * that argument, when given, is the request's field first_key. */
int ts_cli_op_parse_arg(const char *cmd, const ts_op *op, const ts_cli_op_help *help,
                        const char *first_key, int argc, char **argv, ts_cli_op_args *a);
/* One option of --help: "  -n, --micro-batches N" and its help wrapped at 80 columns. */
void ts_cli_help_item(const char *head, const char *text);
/* Takes the command line's own field `key` out of the request: a string (NULL when absent) or
 * whether a flag was given. */
const char *ts_cli_op_take_text(ts_cli_op_args *a, const char *key, char *buf, size_t len);
bool ts_cli_op_take_flag(ts_cli_op_args *a, const char *key);

#endif
