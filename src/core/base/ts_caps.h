/* Memory capacities as every layer passes them: one per device, ndevs entries; NULL where a
 * function takes it for unconstrained memory. Here in the core, beside no solver type, because
 * the search, its messages and the constructions all read and print them the same way. */
#ifndef TS_CAPS_H
#define TS_CAPS_H

#include <stddef.h>

/* The largest of the capacities (0 when ndevs is 0). */
long ts_caps_max(const long *cap, int ndevs);
/* The capacities as a user writes them: "4" when uniform, "9,4,4" per device (cut with ",..."
 * to fit buf), "none" for NULL. Returns buf. */
const char *ts_caps_text(const long *cap, int ndevs, char *buf, size_t len);

#endif
