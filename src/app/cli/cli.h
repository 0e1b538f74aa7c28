/* Shared pieces of the `tessel` command line. Each subcommand lives in its own cmd_*.c file and
 * is listed in the table of main.c. Exit codes: 0 success, 1 no answer, 2 bad usage or input. */
#ifndef TS_CLI_H
#define TS_CLI_H

#include <stdbool.h>
#include "ts_schedule.h"

typedef struct {
    const char *name;
    const char *summary;
    /* argv[0] is the subcommand name */
    int (*run)(int argc, char **argv);
} ts_cli_cmd;

/* Prints "tessel CMD: message" and a hint to --help on stderr; returns 2. */
int ts_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "tessel CMD: e->msg" on stderr; returns e->code (or 3 when it is 0). */
int ts_cli_report(const char *cmd, const ts_err *e);
/* Parses a whole decimal integer in [lo, hi]; on failure reports a usage error naming flag. */
int ts_cli_parse_long(const char *cmd, const char *flag, const char *s, long lo, long hi,
                      long *out);
int ts_cli_parse_double(const char *cmd, const char *flag, const char *s, double lo, double hi,
                        double *out);
/* getopt_long wrapper state reset and unknown-option reporting. Returns the option, or -2 after
 * reporting an error (caller returns 2). */
struct option;
int ts_cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
                  const struct option *longopts);
/* --memory as given: none, one capacity for every device, or a list of one per device. */
typedef struct {
    bool has_memory;
    /* capacities given: 1 (for every device) or a list's length */
    int n;
    /* n entries, owned */
    long *cap;
    /* the argument, for messages */
    const char *arg;
} ts_cli_memory;

/* Parses --memory M|none|M0,M1,...: "none" clears has_memory, a whole number in
 * [0, TS_MAX_MEMORY] is every device's capacity, and a list "9,4,4,4" gives one per device (its
 * length is checked against the placement by ts_cli_memory_caps). Returns 0, or 2 after reporting
 * a usage error. */
int ts_cli_parse_memory(const char *cmd, const char *arg, ts_cli_memory *m);
/* Each device's capacity for a placement of ndevs devices: *out (ndevs entries, the caller
 * frees; NULL without a memory limit). Returns 0, 2 after a usage error (a list of another
 * length than ndevs), 3 when out of memory. */
int ts_cli_memory_caps(const char *cmd, const ts_cli_memory *m, int ndevs, long **out);
void ts_cli_memory_free(ts_cli_memory *m);

/* A placement named on the command line: a file, or a built-in with its device count. */
typedef struct {
    const char *file;
    const char *name;
    long ndevs;
    bool infer;
    long chunks;
} ts_cli_placement;

/* Long options shared by every command that takes a placement; ids 1000..1009. One row per
 * option: clang-format would fold the rows of a braced list in a macro. */
/* clang-format off */
#define TS_CLI_PLACEMENT_OPTIONS                                                                   \
    {"placement", required_argument, 0, 1000},                                                     \
    {"ndevs", required_argument, 0, 1001},                                                         \
    {"infer", no_argument, 0, 1002},                                                               \
    {"chunks", required_argument, 0, 1003}
/* clang-format on */
#define TS_CLI_PLACEMENT_HELP                                                                      \
    "  PLACEMENT            a placement file (tessel-placement/1)\n"                               \
    "  --placement NAME     a built-in placement (see `tessel placements`)\n"                      \
    "  --ndevs D            device count of the built-in\n"                                        \
    "  --infer              inference variant of the built-in (no backward blocks,\n"              \
    "                       memory 0)\n"                                                           \
    "  --chunks V           model chunks per device (vshape_interleaved)\n"
/* Handles one of the shared options; returns 1 when it was one, 0 when not, 2 on error. */
int ts_cli_placement_option(const char *cmd, int opt, const char *arg, ts_cli_placement *pl);
/* ts_cli_getopt for a command that takes a placement: handles the shared placement options itself
 * and returns the next other option, -1 at the end, or -2 after reporting an error. */
int ts_cli_getopt_placement(const char *cmd, int argc, char **argv, const char *shortopts,
                            const struct option *longopts, ts_cli_placement *pl);
/* After the options: takes the placement file, when one is given, from argv[optind] and refuses
 * any further argument. Returns 0, or 2 after reporting a usage error. */
int ts_cli_placement_arg(const char *cmd, int argc, char **argv, ts_cli_placement *pl);
/* Loads the placement from the file (positional) or the built-in. Reports errors itself and
 * returns the exit code (0 on success). */
int ts_cli_placement_load(const char *cmd, ts_cli_placement *pl, ts_placement **out);
/* Loads a schedule file and, when n > 0, unrolls it to n micro-batches. Reports errors itself. */
int ts_cli_schedule_load(const char *cmd, const char *path, long n, ts_schedule **out);
/* After the options: the one positional argument, a schedule file, loaded as by
 * ts_cli_schedule_load (*path names it unless path is NULL). Reports errors itself and returns
 * the exit code. */
/* Warns on stderr (and goes on) when a device's blocks free more memory than they allocate per
 * micro-batch: in a file, most likely a typo. */
void ts_cli_warn_memory(const char *cmd, const ts_placement *p, const char *where);
int ts_cli_schedule_arg(const char *cmd, int argc, char **argv, long n, const char **path,
                        ts_schedule **out);
/* Writes a JSON value to stdout, indented, with a final newline. Steals j. */
void ts_cli_print_json(json_t *j);
json_t *ts_cli_long_array(const long *v, int n);

int ts_cmd_placements(int argc, char **argv);
int ts_cmd_placement(int argc, char **argv);
int ts_cmd_validate(int argc, char **argv);
int ts_cmd_show(int argc, char **argv);
int ts_cmd_simulate(int argc, char **argv);
int ts_cmd_bound(int argc, char **argv);
int ts_cmd_import(int argc, char **argv);
int ts_cmd_export(int argc, char **argv);
int ts_cmd_search(int argc, char **argv);
int ts_cmd_baseline(int argc, char **argv);
int ts_cmd_compare(int argc, char **argv);
int ts_cmd_render(int argc, char **argv);
int ts_cmd_trace(int argc, char **argv);
int ts_cmd_sweep(int argc, char **argv);
int ts_cmd_serve(int argc, char **argv);

#endif
