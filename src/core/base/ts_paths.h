/* Where the installed data is: found relative to the binary or the library that holds the code,
 * so that an installed (or copied) prefix works wherever it lands, and no path of the machine
 * that built it is compiled in. */
#ifndef TS_PATHS_H
#define TS_PATHS_H

#include <stddef.h>

/* Enough for any path this project builds from a folder and a file name. */
#define TS_PATH_MAX 4096

/* The folder of the model descriptions (models/), written into buf (cap bytes), which it returns:
 * $TESSEL_MODELS when set; else, beside the executable or shared library that holds this code,
 * ../share/tessel/models (an installed prefix, and the build tree, which links its
 * share/tessel/models to the source tree's models/), ../../share/tessel/models (a library in
 * lib/<multiarch>/) or models/ (the Python wheel, which puts it next to libtessel.so); else
 * "models", relative to the working directory, as a last resort whose failure to open names the
 * folder. */
const char *ts_models_dir(char *buf, size_t cap);

#endif
