/* A program outside the project: searches vshape on 4 devices at memory 4 through libtessel's
 * JSON interface and prints the makespan of the reply's summary (524). */
#include <stdio.h>
#include <string.h>
#include <ts_pyapi.h>

int main(void)
{
    char *out = NULL;
    int rc = ts_py_call("search", "{\"builtin\": \"vshape\", \"ndevs\": 4, \"memory\": 4}", NULL, &out);
    /* The reply is {"schedule": "<the file, an escaped string>", "summary": {..., "makespan": M,
     * ...}}: the summary's own makespan follows its portfolio's, so it is the last bare key of
     * that name (a program of more than ten lines would parse the JSON with Jansson). */
    const char *makespan = NULL;
    for (const char *p = rc == 0 ? out : NULL; p && (p = strstr(p, "\"makespan\":")); p++)
        makespan = p;
    long value = -1;
    if (!makespan || sscanf(makespan, "\"makespan\": %ld", &value) != 1) {
        fprintf(stderr, "search failed (%d): %s\n", rc, out ? out : "no reply");
        ts_py_free(out);
        return 1;
    }
    printf("makespan %ld\n", value);
    ts_py_free(out);
    return 0;
}
