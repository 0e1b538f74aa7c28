/* The explorer page's files (src/app/serve/assets), compiled into the binary by embed.cmake. */
#ifndef TS_SERVE_ASSETS_H
#define TS_SERVE_ASSETS_H

#include <stddef.h>

typedef struct {
    const char *path; /* "/index.html" */
    const char *type; /* Content-Type */
    const unsigned char *data;
    size_t size;
} ts_serve_asset;

/* Terminated by an entry whose path is NULL. */
extern const ts_serve_asset ts_serve_assets[];
/* The files of models/ and models/hardware/ ("/gpt3-13b.json"); each data ends with a NUL byte. */
extern const ts_serve_asset ts_serve_models[];
extern const ts_serve_asset ts_serve_hardware[];

#endif
