/* The model commands: `tessel model` (a model's per-layer table) and `tessel placement --model`
 * (a placement derived from a model on a GPU). */
#ifndef TS_MODEL_CLI_H
#define TS_MODEL_CLI_H

#include <stdbool.h>
#include <stddef.h>

int ts_cmd_model(int argc, char **argv);
int ts_cmd_plan(int argc, char **argv); /* cmd_plan.c */
/* `tessel placement` hands its arguments here when they contain --model. */
int ts_cmd_placement_model(int argc, char **argv);
/* True when argv holds --model (or --model=...). */
bool ts_cli_has_model_flag(int argc, char **argv);

#endif
