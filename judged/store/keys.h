/* keys.h - the problem store's Redis key names, spelled once for its C
 * files (store.h documents the layout; store.lua receives its keys from
 * here). A submission's hash is the queue library's: queue_submission_key.
 *
 * The metadata (problems, versions, manifests, the byte count, the
 * reference counts) is written by functions that take several of these
 * keys at once, so on a Redis Cluster it must live in one hash slot: its
 * names start with KEY_META_CLUSTER there (one tag, {store}); on one Redis
 * with KEY_META_SINGLE, the names the store has always had (an existing
 * store keeps working without renaming anything). store_meta_key picks.
 * Blobs are content-addressed and touched one key at a time (each lives
 * in the slot of its own name); a blob's staging key takes the blob's
 * whole name as its tag, so the two share a slot. */
#ifndef JUDGED_STORE_KEYS_H
#define JUDGED_STORE_KEYS_H

#define KEY_META_SINGLE "judge:"             /* one Redis (and sentinel://) */
#define KEY_META_CLUSTER "judge:{store}:"    /* redis-cluster:// */

/* metadata: after KEY_META_SINGLE or KEY_META_CLUSTER */
#define META_MANIFEST "manifest:"            /* + VERSION */
#define META_VERSION "version:"              /* + VERSION ":names" */
#define META_PROBLEM "problem:"              /* + NAME, + NAME ":versions" */
#define FIELD_SUMMARY "summary:"             /* + VERSION: a field of problem:NAME
                                                (store.lua spells it too) */
#define META_DIRECTORY "directory"           /* the hosts' problems directory's summaries (+ ":new") */
#define META_PROBLEMS "problems"
#define META_STORE_BYTES "store:bytes"
#define META_STORE_REFS "store:refs"         /* SHA -> versions listing it (store.lua 5) */
#define META_STORE_PINS "store:pins"         /* VERSION -> the push whose pins hold its blobs */

/* blobs: one key each, any slot */
#define KEY_BLOB "judge:blob:"               /* + SHA */
/* SHA, TOKEN: a push's staging key; its tag is the blob's whole name (the
 * blob's slot), its name starts with judge: (what the ACL users of README's
 * "Roles" may write) */
#define KEY_BLOB_PART "judge:part:{" KEY_BLOB "%s}:%s"

/* staged uploads: metadata too (a transaction moves an id between lists) */
#define META_UPLOAD "upload:"                /* + ID, + ID ":done" */
#define META_UPLOADS "uploads"
#define META_UPLOADS_HOST "uploads:host:"    /* + HOST */

#define KEY_REJUDGE "judge:rejudge:"         /* + ID, + ID ":ids" */
#define KEY_REJUDGES "judge:rejudges"
#define KEY_VERIFY "judge:verify:"           /* + ID: a verify over HTTP (JSON) */
#define KEY_VERIFY_RUNNING "judge:verify:running:"   /* + NAME ":" VERSION: its verify's ID */

#endif
