/* ts_models_dir: the models folder relative to the binary or library this code is linked into. */
/* dladdr and Dl_info are GNU extensions of <dlfcn.h>. */
#define _GNU_SOURCE
#include "ts_paths.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Any object of this file: dladdr names the module (executable or shared library) holding it. */
static const char ts_paths_anchor = 0;

/* Tries the data folders beside the module at path; on a match, writes it to buf. */
static int ts_models_beside(const char *path, char *buf, size_t cap)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return 0;
    char *slash = strrchr(real, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    /* bin/ or lib/ of a prefix; lib/<multiarch>/ (GNUInstallDirs under /usr); the wheel's
     * package folder, which holds libtessel.so and models/ side by side. */
    static const char *const rel[] = {"../share/tessel/models", "../../share/tessel/models",
                                      "models"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char cand[TS_PATH_MAX], found[PATH_MAX];
        struct stat st;
        int n = snprintf(cand, sizeof cand, "%s/%s", real, rel[i]);
        if (n < 0 || (size_t)n >= sizeof cand || stat(cand, &st) || !S_ISDIR(st.st_mode))
            continue;
        /* The canonical path reads better in messages than bin/../share/...; it fits, or the
         * uncanonical one is used. */
        const char *best = realpath(cand, found) ? found : cand;
        if (strlen(best) >= cap)
            continue;
        memcpy(buf, best, strlen(best) + 1);
        return 1;
    }
    return 0;
}

const char *ts_models_dir(char *buf, size_t cap)
{
    const char *env = getenv("TESSEL_MODELS");
    if (env && *env && strlen(env) < cap) {
        memcpy(buf, env, strlen(env) + 1);
        return buf;
    }
    /* For a shared library dladdr gives its path as loaded; for the executable glibc gives argv[0],
     * which is a usable path only when it holds a slash; /proc/self/exe is the executable's. */
    Dl_info info;
    if (dladdr(&ts_paths_anchor, &info) && info.dli_fname && strchr(info.dli_fname, '/') &&
        ts_models_beside(info.dli_fname, buf, cap))
        return buf;
    if (ts_models_beside("/proc/self/exe", buf, cap))
        return buf;
    snprintf(buf, cap, "models");
    return buf;
}
