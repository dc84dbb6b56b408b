/* keys.h - the problem store's Redis key names, spelled once for its C
 * files (store.h documents the layout; store.lua receives its keys from
 * here). A submission's hash is the queue library's: queue_submission_key. */
#ifndef JUDGED_STORE_KEYS_H
#define JUDGED_STORE_KEYS_H

#define KEY_BLOB "judge:blob:"               /* + SHA (+ ":part:" TOKEN while sent) */
#define KEY_MANIFEST "judge:manifest:"       /* + VERSION */
#define KEY_VERSION "judge:version:"         /* + VERSION ":names" */
#define KEY_PROBLEM "judge:problem:"         /* + NAME, + NAME ":versions" */
#define FIELD_SUMMARY "summary:"             /* + VERSION: a field of judge:problem:NAME
                                                (store.lua spells it too) */
#define KEY_DIRECTORY "judge:directory"      /* the hosts' problems directory's summaries */
#define KEY_PROBLEMS "judge:problems"
#define KEY_STORE_BYTES "judge:store:bytes"
#define KEY_UPLOAD "judge:upload:"           /* + ID, + ID ":done" */
#define KEY_UPLOADS "judge:uploads"
#define KEY_UPLOADS_HOST "judge:uploads:host:"   /* + HOST */
#define KEY_REJUDGE "judge:rejudge:"         /* + ID, + ID ":ids" */
#define KEY_REJUDGES "judge:rejudges"
#define KEY_VERIFY "judge:verify:"           /* + ID: a verify over HTTP (JSON) */
#define KEY_VERIFY_RUNNING "judge:verify:running:"   /* + NAME ":" VERSION: its verify's ID */

#endif
