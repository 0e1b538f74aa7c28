/* The one range of a time limit, in seconds, for every place that takes one: `tessel search`,
 * `compare`, `sweep` (its flag and its spec), `plan`, the explorer's jobs, and the solver's
 * option table. A limit of 0 means "none" where a caller allows that; otherwise it lies in
 * [TS_TIME_LIMIT_MIN, TS_TIME_LIMIT_MAX]. */
#ifndef TS_TIME_LIMIT_H
#define TS_TIME_LIMIT_H

#define TS_TIME_LIMIT_MIN 0.001
#define TS_TIME_LIMIT_MAX 1e6

#endif
