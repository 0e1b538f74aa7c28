/* Shared by the libFuzzer targets: the loaders take a path, so each input goes through a temporary
 * file (made and removed per input, so that the harness keeps no state between runs), and every
 * message a rejected input produces must be one printable line. */
#ifndef TS_FUZZ_UTIL_H
#define TS_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ts_error.h"

/* Writes the input to a new temporary file; path receives its name. 0 on success. */
static inline int fz_write_temp(const uint8_t *data, size_t size, char *path, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, cap, "%s/tessel-fuzz-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) {
            close(fd);
            unlink(path);
            return -1;
        }
        done += (size_t)w;
    }
    close(fd);
    return 0;
}

/* The invariant on messages: a failure says something, on one line of printable characters. */
static inline void fz_check_message(const ts_err *e)
{
    if (e->code == TS_OK)
        return;
    if (!e->msg[0]) {
        fprintf(stderr, "fuzz invariant: failure %d without a message\n", e->code);
        abort();
    }
    for (const unsigned char *c = (const unsigned char *)e->msg; *c; c++)
        if (*c < 0x20 || *c == 0x7f) {
            fprintf(stderr, "fuzz invariant: control character 0x%02x in message: %s\n", *c,
                    e->msg);
            abort();
        }
}

#endif
