/* tessel serve: the placement explorer (src/app/serve), linked in when libmicrohttpd was found. */
#include <stdio.h>
#include "cli.h"
#ifdef TS_HAVE_SERVE
#include "ts_serve.h"
#endif

int ts_cmd_serve(int argc, char **argv)
{
#ifdef TS_HAVE_SERVE
    return ts_serve_main(argc, argv);
#else
    (void)argc;
    (void)argv;
    fprintf(stderr, "tessel serve: this build has no explorer (libmicrohttpd or Z3 was not found "
                    "when it was configured)\n");
    return 2;
#endif
}
