/* tessel: the table of subcommands (name, summary, function) and the dispatch to them. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "model_cli.h"

/* One line per subcommand. A subcommand added by a new cmd_*.c file gets its line here. */
static const ts_cli_cmd ts_commands[] = {
    {"placements", "list the built-in placements", ts_cmd_placements},
    {"placement", "write a built-in placement as a file", ts_cmd_placement},
    {"model", "a model's per-layer FLOPs, parameters, activations (models/)", ts_cmd_model},
    {"plan", "rank parallel plans for a model on GPUs, in seconds, GB and MFU", ts_cmd_plan},
    {"validate", "check a schedule: exclusivity, dependencies, memory, completeness",
     ts_cmd_validate},
    {"show", "print a schedule as a text timeline", ts_cmd_show},
    {"simulate", "replay each device's order and report makespan, bubbles, memory",
     ts_cmd_simulate},
    {"bound", "lower bound on the makespan of N micro-batches", ts_cmd_bound},
    {"import", "convert a schedule written by the Python Tessel", ts_cmd_import},
    {"export", "write a schedule in another tool's format (the Python Tessel's)", ts_cmd_export},
    {"search", "find a schedule under a memory limit (lazy, fast, full, modulo)", ts_cmd_search},
    {"sweep", "run a grid of searches in parallel workers, resumable", ts_cmd_sweep},
    {"baseline", "build a hand-made schedule by a published rule (--list)", ts_cmd_baseline},
    {"compare", "baselines and search methods side by side in one table", ts_cmd_compare},
    {"render", "draw a schedule as an SVG timeline (optionally PNG)", ts_cmd_render},
    {"trace", "write a schedule's planned timeline as a Chrome trace", ts_cmd_trace},
    {"serve", "the placement explorer: a local web application", ts_cmd_serve},
};

static void ts_usage(FILE *f)
{
    fprintf(f, "usage: tessel COMMAND [OPTIONS]\n\n"
               "Find and study schedules of pipelined training and inference.\n\nCommands:\n");
    for (size_t i = 0; i < sizeof ts_commands / sizeof ts_commands[0]; i++)
        fprintf(f, "  %-12s %s\n", ts_commands[i].name, ts_commands[i].summary);
    fprintf(f,
            "\nRun `tessel COMMAND --help` for a command's options.\n"
            "Exit status: 0 success, 1 no answer (invalid or infeasible), 2 bad usage or\n"
            "input.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        ts_usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        ts_usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("tessel %s\n", TS_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof ts_commands / sizeof ts_commands[0]; i++)
        if (!strcmp(argv[1], ts_commands[i].name))
            return ts_commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "tessel: unknown command '%s'\n", argv[1]);
    ts_usage(stderr);
    return 2;
}
