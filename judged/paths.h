/* paths.h - where judged and judgectl look when they are not told: the
 * configuration file and the languages directory (internal to judged/). */
#ifndef JUDGED_PATHS_H
#define JUDGED_PATHS_H

#include <stddef.h>

/* The configuration read without --config: $JUDGED_CONFIG when it is set and
 * not empty, else /etc/judged/judged.yaml. */
const char *jd_default_config(void);

/* The languages directory used when the configuration (or judgectl's
 * --languages) does not name one: share/judged/languages beside the
 * executable's bin/ directory. Writes it into buf (len bytes); returns buf. */
const char *jd_default_languages(char *buf, size_t len);

/* judge-api's dashboard files when api.dashboard is not set: share/judged/www
 * beside the executable's bin/ (in the build tree a link to judged/api/www). */
const char *jd_default_dashboard(char *buf, size_t len);

#endif
