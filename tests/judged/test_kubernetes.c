/* test_kubernetes.c - the manifests of packaging/kubernetes/ as a user
 * would get them wrong. No kubectl or kubeconform here (nor a cluster), so
 * this is the schema check: every document of every .yaml file is loaded
 * with libyaml and checked for
 *   - a known apiVersion/kind pair and the fields its kind requires;
 *   - references that resolve in the same namespace: a ScaledObject's or
 *     HPA's Deployment, a TriggerAuthentication's Secret keys, a pod's
 *     ConfigMap file and Secret key;
 *   - the Redis names judged uses (queue_stream_key, QUEUE_GROUP: taken from
 *     the queue library, not retyped) in every redis-streams trigger, both
 *     queues of the pool covered;
 *   - KEDA trigger metadata given as strings (a bare 2 is refused by the API);
 *   - each Deployment's judged configuration passing judged's own loader
 *     (jd_config_load), with one pool, a redis: URL, no fixed host:, and
 *     language files that exist (judged's start check);
 *   - terminationGracePeriodSeconds > grace + lease of that configuration.
 * The same checker runs on broken copies of the real files: each must fail
 * with the error a user would need. Unit test, no sandbox slot. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "core.h"
#include "queue.h"

#define KDIR JUDGED_SOURCE_DIR "/packaging/kubernetes"

/* ------------------------------------------------------------- the files */

struct file {
    char name[640];          /* relative to KDIR */
    char *text;
};
struct files {
    struct file f[32];
    int n;
};

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot read %s", path);
    char *s = calloc(1, 1 << 20);
    size_t n = fread(s, 1, (1 << 20) - 1, f);
    cr_assert(n < (1 << 20) - 1, "%s is too large", path);
    fclose(f);
    return s;
}

/* Every *.yaml under KDIR/rel, recursively. */
static void load_dir(struct files *fs, const char *rel)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s%s%s", KDIR, *rel ? "/" : "", rel);
    DIR *d = opendir(dir);
    cr_assert(d, "cannot open %s", dir);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[600], path[1200];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(path, sizeof path, "%s/%s", KDIR, sub);
        struct stat st;
        cr_assert(stat(path, &st) == 0);
        size_t len = strlen(e->d_name);
        if (S_ISDIR(st.st_mode)) {
            load_dir(fs, sub);
        } else if (len > 5 && !strcmp(e->d_name + len - 5, ".yaml")) {
            cr_assert(fs->n < 32);
            snprintf(fs->f[fs->n].name, sizeof fs->f[fs->n].name, "%s", sub);
            fs->f[fs->n++].text = slurp(path);
        }
    }
    closedir(d);
}

static void files_free(struct files *fs)
{
    for (int i = 0; i < fs->n; i++)
        free(fs->f[i].text);
}

/* The files with one text replaced (the first occurrence of from in file
 * name becomes to): a user's mistake. */
static void mutate(struct files *fs, const char *name, const char *from, const char *to)
{
    for (int i = 0; i < fs->n; i++) {
        if (strcmp(fs->f[i].name, name))
            continue;
        char *at = strstr(fs->f[i].text, from);
        cr_assert(at, "%s has no '%s' to break", name, from);
        size_t head = (size_t)(at - fs->f[i].text), flen = strlen(from), tlen = strlen(to);
        char *s = malloc(strlen(fs->f[i].text) - flen + tlen + 1);
        memcpy(s, fs->f[i].text, head);
        memcpy(s + head, to, tlen);
        strcpy(s + head + tlen, at + flen);
        free(fs->f[i].text);
        fs->f[i].text = s;
        return;
    }
    cr_assert_fail("no file %s", name);
}

/* ------------------------------------------------------------- documents */

struct doc {
    const char *file;
    yaml_document_t d;
    const char *kind, *name, *ns;
    char pool[130];           /* a Deployment's judge-pool label */
};

struct check {
    struct doc docs[64];
    int n;
    char err[16384];
    size_t elen;
    int deployments, scaledobjects;   /* counted before the documents go */
};

static void fail(struct check *c, const struct doc *d, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fail(struct check *c, const struct doc *d, const yaml_node_t *n, const char *fmt, ...)
{
    if (c->elen + 600 > sizeof c->err)
        return;
    c->elen += (size_t)snprintf(c->err + c->elen, sizeof c->err - c->elen, "%s:%d: %s %s: ", d->file,
                                n ? (int)n->start_mark.line + 1 : 0, d->kind ? d->kind : "?",
                                d->name ? d->name : "?");
    va_list ap;
    va_start(ap, fmt);
    c->elen += (size_t)vsnprintf(c->err + c->elen, sizeof c->err - c->elen, fmt, ap);
    va_end(ap);
    c->elen += (size_t)snprintf(c->err + c->elen, sizeof c->err - c->elen, "\n");
}

static yaml_node_t *child(struct doc *d, yaml_node_t *n, const char *key)
{
    if (!n || n->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(&d->d, p->key);
        if (k && k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key))
            return yaml_document_get_node(&d->d, p->value);
    }
    return NULL;
}

/* The node at a dotted path ("spec.template.spec") from n. */
static yaml_node_t *at(struct doc *d, yaml_node_t *n, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    char *save = NULL;
    for (char *part = strtok_r(buf, ".", &save); part && n; part = strtok_r(NULL, ".", &save))
        n = child(d, n, part);
    return n;
}

static const char *scalar(yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *item(struct doc *d, yaml_node_t *seq, int i)
{
    if (!seq || seq->type != YAML_SEQUENCE_NODE || i >= seq->data.sequence.items.top - seq->data.sequence.items.start)
        return NULL;
    return yaml_document_get_node(&d->d, seq->data.sequence.items.start[i]);
}

/* A required field: its node, or NULL after an error naming it. */
static yaml_node_t *need(struct check *c, struct doc *d, yaml_node_t *from, const char *path)
{
    yaml_node_t *n = at(d, from, path);
    if (!n)
        fail(c, d, from, "missing %s", path);
    return n;
}

static long need_int(struct check *c, struct doc *d, yaml_node_t *from, const char *path)
{
    const char *s = scalar(need(c, d, from, path));
    char *end = NULL;
    long v = s ? strtol(s, &end, 10) : -1;
    if (s && (*end || end == s)) {
        fail(c, d, at(d, from, path), "%s: '%s' is not an integer", path, s);
        v = -1;
    }
    return v;
}

static const struct {
    const char *api, *kind;
} KINDS[] = {
    {"apps/v1", "Deployment"},
    {"v1", "ConfigMap"},
    {"v1", "Secret"},
    {"v1", "ServiceAccount"},
    {"keda.sh/v1alpha1", "ScaledObject"},
    {"keda.sh/v1alpha1", "TriggerAuthentication"},
    {"autoscaling/v2", "HorizontalPodAutoscaler"},
};

static void parse_file(struct check *c, const struct file *f)
{
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)f->text, strlen(f->text));
    for (;;) {
        cr_assert(c->n < 64);
        struct doc *d = &c->docs[c->n];
        memset(d, 0, sizeof *d);
        d->file = f->name;
        if (!yaml_parser_load(&p, &d->d)) {
            struct doc e = {.file = f->name};
            fail(c, &e, NULL, "YAML: %s (line %zu)", p.problem ? p.problem : "syntax error",
                 p.problem_mark.line + 1);
            break;
        }
        yaml_node_t *root = yaml_document_get_root_node(&d->d);
        if (!root) {
            yaml_document_delete(&d->d);
            break;
        }
        c->n++;
        const char *api = scalar(child(d, root, "apiVersion"));
        d->kind = scalar(child(d, root, "kind"));
        d->name = scalar(at(d, root, "metadata.name"));
        d->ns = scalar(at(d, root, "metadata.namespace"));
        bool known = false;
        for (size_t i = 0; i < sizeof KINDS / sizeof *KINDS; i++)
            known |= api && d->kind && !strcmp(api, KINDS[i].api) && !strcmp(d->kind, KINDS[i].kind);
        if (!known)
            fail(c, d, root, "unknown apiVersion/kind pair '%s' '%s'", api ? api : "(none)",
                 d->kind ? d->kind : "(none)");
        if (!d->name)
            fail(c, d, root, "missing metadata.name");
        if (!d->ns)
            fail(c, d, root, "missing metadata.namespace");
    }
    yaml_parser_delete(&p);
}

static struct doc *find(struct check *c, const char *kind, const char *name, const char *ns)
{
    for (int i = 0; i < c->n; i++)
        if (c->docs[i].kind && c->docs[i].name && !strcmp(c->docs[i].kind, kind) &&
            !strcmp(c->docs[i].name, name) && ns && c->docs[i].ns && !strcmp(c->docs[i].ns, ns))
            return &c->docs[i];
    return NULL;
}

static yaml_node_t *root(struct doc *d)
{
    return yaml_document_get_root_node(&d->d);
}

/* A Secret's key, from data or stringData. */
static bool secret_has(struct doc *s, const char *key)
{
    return child(s, at(s, root(s), "data"), key) || child(s, at(s, root(s), "stringData"), key);
}

/* ----------------------------------------------------------- by kind */

/* Whether a plain (unquoted) scalar would reach the API as a number, a
 * boolean or null: KEDA's trigger metadata is a map of strings. */
static bool typed_plain(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = (const char *)n->data.scalar.value;
    static const char *const words[] = {"true", "false", "True", "False", "null", "~", "yes", "no", ""};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (!strcmp(s, words[i]))
            return true;
    char *end;
    (void)strtod(s, &end);
    return *end == '\0';
}

/* judged's configuration as the pod reads it: JUDGED_CONFIG names a file
 * in a mounted ConfigMap. Checks it with judged's own loader and returns
 * its grace + lease in ms (-1: unusable). */
static long pod_config(struct check *c, struct doc *d, yaml_node_t *pod, yaml_node_t *ctr)
{
    const char *path = NULL;
    yaml_node_t *env = child(d, ctr, "env");
    for (int i = 0; item(d, env, i); i++) {
        yaml_node_t *e = item(d, env, i);
        const char *n = scalar(child(d, e, "name"));
        if (n && !strcmp(n, "JUDGED_CONFIG"))
            path = scalar(child(d, e, "value"));
        if (n && !strcmp(n, "JUDGED_REDIS_PASSWORD")) {
            const char *sn = scalar(at(d, e, "valueFrom.secretKeyRef.name"));
            const char *sk = scalar(at(d, e, "valueFrom.secretKeyRef.key"));
            struct doc *s = sn ? find(c, "Secret", sn, d->ns) : NULL;
            if (!s || !sk || !secret_has(s, sk))
                fail(c, d, e, "JUDGED_REDIS_PASSWORD: no Secret '%s' with key '%s' in namespace %s",
                     sn ? sn : "?", sk ? sk : "?", d->ns);
        }
    }
    if (!path || !strrchr(path, '/')) {
        fail(c, d, ctr, "no JUDGED_CONFIG=/DIR/FILE in the container's env");
        return -1;
    }
    const char *base = strrchr(path, '/') + 1;
    size_t dirlen = (size_t)(base - 1 - path);
    const char *vol = NULL;
    yaml_node_t *mounts = child(d, ctr, "volumeMounts");
    for (int i = 0; item(d, mounts, i); i++) {
        const char *mp = scalar(child(d, item(d, mounts, i), "mountPath"));
        if (mp && strlen(mp) == dirlen && !strncmp(mp, path, dirlen))
            vol = scalar(child(d, item(d, mounts, i), "name"));
    }
    const char *cm = NULL;
    yaml_node_t *vols = child(d, pod, "volumes");
    for (int i = 0; vol && item(d, vols, i); i++) {
        const char *vn = scalar(child(d, item(d, vols, i), "name"));
        if (vn && !strcmp(vn, vol))
            cm = scalar(at(d, item(d, vols, i), "configMap.name"));
    }
    struct doc *m = cm ? find(c, "ConfigMap", cm, d->ns) : NULL;
    const char *text = m ? scalar(child(m, at(m, root(m), "data"), base)) : NULL;
    if (!text) {
        fail(c, d, ctr, "JUDGED_CONFIG=%s: no ConfigMap volume mounted there holds '%s'", path, base);
        return -1;
    }
    char tmp[] = "/tmp/judged-k8s-XXXXXX";
    int fd = mkstemp(tmp);   /* 0600 */
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    struct jd_config cfg;
    char err[1024];
    long graceful = -1;
    if (jd_config_load(&cfg, tmp, err, sizeof err)) {
        fail(c, d, ctr, "ConfigMap %s, %s: judged refuses it: %s", cm, base, err);
    } else {
        graceful = cfg.grace_ms + cfg.lease_ms;
        if (cfg.npools != 1 || strcmp(cfg.pools[0].name, d->pool))
            fail(c, d, ctr, "ConfigMap %s, %s: must have one pool, '%s' (the judge-pool label)", cm, base,
                 d->pool);
        if (!cfg.redis)
            fail(c, d, ctr, "ConfigMap %s, %s: no redis: URL (each pod would start a Redis of its own)", cm,
                 base);
        for (int p = 0; p < cfg.npools; p++)
            for (int l = 0; l < cfg.pools[p].nlanguages; l++) {
                char lf[600];
                snprintf(lf, sizeof lf, "%s/languages/%s.yaml", JUDGED_SOURCE_DIR, cfg.pools[p].languages[l]);
                if (access(lf, R_OK))
                    fail(c, d, ctr, "ConfigMap %s, %s: language '%s' has no language file", cm, base,
                         cfg.pools[p].languages[l]);
            }
    }
    jd_config_free(&cfg);   /* a refused file leaves what it had read too */
    unlink(tmp);
    /* judged defaults host: to the hostname, the pod's name; a fixed one
     * would make every replica the same consumer */
    yaml_document_t y;
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
    if (yaml_parser_load(&p, &y)) {
        struct doc cd = {.d = y};
        if (child(&cd, yaml_document_get_root_node(&y), "host"))
            fail(c, d, ctr, "ConfigMap %s, %s: sets host: (every replica would be one consumer)", cm, base);
        yaml_document_delete(&y);
    }
    yaml_parser_delete(&p);
    return graceful;
}

static void check_deployment(struct check *c, struct doc *d)
{
    yaml_node_t *r = root(d);
    yaml_node_t *sel = need(c, d, r, "spec.selector.matchLabels");
    yaml_node_t *labels = need(c, d, r, "spec.template.metadata.labels");
    for (yaml_node_pair_t *p = sel && sel->type == YAML_MAPPING_NODE ? sel->data.mapping.pairs.start : NULL;
         p && p < sel->data.mapping.pairs.top; p++) {
        const char *k = scalar(yaml_document_get_node(&d->d, p->key));
        const char *v = scalar(yaml_document_get_node(&d->d, p->value));
        const char *have = k ? scalar(child(d, labels, k)) : NULL;
        if (!have || !v || strcmp(have, v))
            fail(c, d, sel, "selector %s=%s does not match the pod template's labels", k ? k : "?", v ? v : "?");
    }
    const char *pool = scalar(child(d, labels, "judge-pool"));
    if (!pool)
        fail(c, d, labels, "the pod template has no judge-pool label");
    snprintf(d->pool, sizeof d->pool, "%s", pool ? pool : "");
    yaml_node_t *pod = need(c, d, r, "spec.template.spec");
    long tgps = need_int(c, d, pod, "terminationGracePeriodSeconds");
    yaml_node_t *ctrs = need(c, d, pod, "containers");
    yaml_node_t *judged = NULL;
    for (int i = 0; item(d, ctrs, i); i++) {
        if (!scalar(child(d, item(d, ctrs, i), "name")) || !scalar(child(d, item(d, ctrs, i), "image")))
            fail(c, d, item(d, ctrs, i), "a container needs a name and an image");
        const char *n = scalar(child(d, item(d, ctrs, i), "name"));
        if (n && !strcmp(n, "judged"))
            judged = item(d, ctrs, i);
    }
    if (!judged) {
        fail(c, d, ctrs, "no container named judged");
        return;
    }
    long graceful = pool ? pod_config(c, d, pod, judged) : -1;
    if (graceful >= 0 && tgps >= 0 && tgps * 1000 <= graceful)
        fail(c, d, at(d, pod, "terminationGracePeriodSeconds"),
             "terminationGracePeriodSeconds %ld must exceed judged's grace + lease (%ld s): a scale-in "
             "would kill a judging before it is given back",
             tgps, graceful / 1000);
}

/* The Deployment a scaler names (spec.scaleTargetRef), or NULL (reported). */
static struct doc *target(struct check *c, struct doc *d)
{
    yaml_node_t *ref = need(c, d, root(d), "spec.scaleTargetRef");
    const char *name = scalar(child(d, ref, "name"));
    const char *kind = scalar(child(d, ref, "kind"));
    struct doc *t = name ? find(c, "Deployment", name, d->ns) : NULL;
    if (!t || (kind && strcmp(kind, "Deployment")))
        fail(c, d, ref, "scaleTargetRef names no Deployment of these files in namespace %s: '%s'",
             d->ns ? d->ns : "?", name ? name : "(none)");
    return t;
}

static void check_scaledobject(struct check *c, struct doc *d)
{
    yaml_node_t *r = root(d);
    struct doc *t = target(c, d);
    if (need_int(c, d, r, "spec.minReplicaCount") < 1)
        fail(c, d, at(d, r, "spec.minReplicaCount"),
             "minReplicaCount must be at least 1: rejudges, retries and given-back jobs are not in the lag");
    need_int(c, d, r, "spec.maxReplicaCount");
    yaml_node_t *trig = need(c, d, r, "spec.triggers");
    bool covered[2] = {false, false};
    for (int i = 0; item(d, trig, i); i++) {
        yaml_node_t *tr = item(d, trig, i);
        const char *type = scalar(child(d, tr, "type"));
        if (!type || strcmp(type, "redis-streams")) {
            fail(c, d, tr, "trigger type '%s': expected redis-streams", type ? type : "(none)");
            continue;
        }
        yaml_node_t *md = need(c, d, tr, "metadata");
        for (yaml_node_pair_t *p = md && md->type == YAML_MAPPING_NODE ? md->data.mapping.pairs.start : NULL;
             p && p < md->data.mapping.pairs.top; p++) {
            yaml_node_t *v = yaml_document_get_node(&d->d, p->value);
            if (typed_plain(v))
                fail(c, d, v, "trigger metadata %s: %s must be a quoted string",
                     scalar(yaml_document_get_node(&d->d, p->key)), scalar(v));
        }
        const char *group = scalar(child(d, md, "consumerGroup"));
        if (!group || strcmp(group, QUEUE_GROUP))
            fail(c, d, md, "consumerGroup '%s': judged's group is '%s'", group ? group : "(none)", QUEUE_GROUP);
        if (!child(d, md, "lagCount") || !child(d, md, "activationLagCount"))
            fail(c, d, md, "lagCount and activationLagCount are required (the lag mode, scaling from zero)");
        if (!child(d, md, "address") && !child(d, md, "addressFromEnv") && !child(d, md, "host"))
            fail(c, d, md, "no Redis address");
        const char *stream = scalar(child(d, md, "stream"));
        bool known = false;
        for (int q = 0; t && q < 2; q++) {
            char key[200];
            queue_stream_key(key, sizeof key, t->pool, q);
            if (stream && !strcmp(stream, key))
                known = covered[q] = true;
        }
        if (t && !known) {
            char kn[200], kc[200];
            queue_stream_key(kn, sizeof kn, t->pool, QUEUE_NORMAL);
            queue_stream_key(kc, sizeof kc, t->pool, QUEUE_CONTEST);
            fail(c, d, md, "stream '%s' is not a queue of pool '%s' (judged's: %s, %s)",
                 stream ? stream : "(none)", t->pool, kn, kc);
        }
        const char *auth = scalar(at(d, tr, "authenticationRef.name"));
        if (auth && !find(c, "TriggerAuthentication", auth, d->ns))
            fail(c, d, tr, "authenticationRef names no TriggerAuthentication '%s'", auth);
    }
    for (int q = 0; t && q < 2; q++)
        if (!covered[q]) {
            char key[200];
            queue_stream_key(key, sizeof key, t->pool, q);
            fail(c, d, trig, "no trigger on %s: its submissions would never scale the pool", key);
        }
}

static void check_triggerauth(struct check *c, struct doc *d)
{
    yaml_node_t *refs = need(c, d, root(d), "spec.secretTargetRef");
    for (int i = 0; item(d, refs, i); i++) {
        yaml_node_t *e = item(d, refs, i);
        const char *param = scalar(child(d, e, "parameter"));
        const char *name = scalar(child(d, e, "name"));
        const char *key = scalar(child(d, e, "key"));
        struct doc *s = name ? find(c, "Secret", name, d->ns) : NULL;
        if (!param || !s || !key || !secret_has(s, key))
            fail(c, d, e, "secretTargetRef %s: no Secret '%s' with key '%s'", param ? param : "?",
                 name ? name : "?", key ? key : "?");
    }
}

static void check_hpa(struct check *c, struct doc *d)
{
    yaml_node_t *r = root(d);
    struct doc *t = target(c, d);
    if (need_int(c, d, r, "spec.minReplicas") < 1)
        fail(c, d, at(d, r, "spec.minReplicas"), "minReplicas must be at least 1");
    need_int(c, d, r, "spec.maxReplicas");
    yaml_node_t *ms = need(c, d, r, "spec.metrics");
    /* the metric judge-api exports, as admin.c spells it */
    char *api = slurp(JUDGED_SOURCE_DIR "/judged/api/admin.c");
    for (int i = 0; item(d, ms, i); i++) {
        yaml_node_t *m = item(d, ms, i);
        const char *name = scalar(at(d, m, "external.metric.name"));
        const char *pool = scalar(at(d, m, "external.metric.selector.matchLabels.pool"));
        char spelled[200];
        snprintf(spelled, sizeof spelled, "\"%s{pool=", name ? name : "");
        if (!name || !strstr(api, spelled))
            fail(c, d, m, "external metric '%s' is not one judge-api exports by pool", name ? name : "(none)");
        if (t && (!pool || strcmp(pool, t->pool)))
            fail(c, d, m, "metric selector pool '%s' is not the Deployment's pool '%s'", pool ? pool : "(none)",
                 t->pool);
        if (!at(d, m, "external.target.averageValue"))
            fail(c, d, m, "missing external.target.averageValue");
    }
    free(api);
}

/* Every check on the files; the errors, one a line ("" when none). */
static const char *check_all(struct check *c, const struct files *fs)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < fs->n; i++)
        parse_file(c, &fs->f[i]);
    /* Deployments first: scalers check against their pools */
    for (int i = 0; i < c->n; i++)
        if (c->docs[i].kind && !strcmp(c->docs[i].kind, "Deployment"))
            check_deployment(c, &c->docs[i]);
    for (int i = 0; i < c->n; i++) {
        struct doc *d = &c->docs[i];
        if (!d->kind)
            continue;
        if (!strcmp(d->kind, "ScaledObject"))
            c->scaledobjects++, check_scaledobject(c, d);
        else if (!strcmp(d->kind, "TriggerAuthentication"))
            check_triggerauth(c, d);
        else if (!strcmp(d->kind, "HorizontalPodAutoscaler"))
            check_hpa(c, d);
        else if (!strcmp(d->kind, "ConfigMap"))
            need(c, d, root(d), "data");
        else if (!strcmp(d->kind, "Secret") && !at(d, root(d), "data") && !at(d, root(d), "stringData"))
            fail(c, d, root(d), "a Secret needs data or stringData");
    }
    /* each Deployment: one ScaledObject (the main path) and at most one HPA */
    for (int i = 0; i < c->n; i++) {
        struct doc *d = &c->docs[i];
        if (!d->kind || strcmp(d->kind, "Deployment"))
            continue;
        c->deployments++;
        int so = 0, hpa = 0;
        for (int j = 0; j < c->n; j++) {
            struct doc *s = &c->docs[j];
            const char *n = s->kind ? scalar(at(s, root(s), "spec.scaleTargetRef.name")) : NULL;
            if (n && d->name && !strcmp(n, d->name)) {
                so += !strcmp(s->kind, "ScaledObject");
                hpa += !strcmp(s->kind, "HorizontalPodAutoscaler");
            }
        }
        if (so != 1 || hpa > 1)
            fail(c, d, root(d), "targeted by %d ScaledObject(s) and %d HPA(s): expected one and at most one", so,
                 hpa);
    }
    for (int i = 0; i < c->n; i++) {
        yaml_document_delete(&c->docs[i].d);
        c->docs[i].kind = c->docs[i].name = c->docs[i].ns = NULL;
    }
    return c->err;
}

/* ----------------------------------------------------------------- tests */

static struct check C;

Test(kubernetes, the_manifests_pass)
{
    struct files fs = {0};
    load_dir(&fs, "");
    cr_assert_geq(fs.n, 6, "only %d manifest files under %s", fs.n, KDIR);
    const char *err = check_all(&C, &fs);
    cr_assert_str_empty(err, "packaging/kubernetes:\n%s", err);
    cr_assert_eq(C.deployments, 3, "a Deployment per example pool (native, python, java)");
    cr_assert_eq(C.scaledobjects, 3);
    files_free(&fs);
}

/* One mistake in one file: the check must fail, saying what. */
static void broken(const char *file, const char *from, const char *to, const char *needle)
{
    struct files fs = {0};
    load_dir(&fs, "");
    mutate(&fs, file, from, to);
    const char *err = check_all(&C, &fs);
    cr_assert(strstr(err, needle), "%s with '%s' for '%s': expected an error with '%s', got:\n%s", file, to,
              from, needle, err);
    files_free(&fs);
}

Test(kubernetes, a_wrong_stream_fails)
{
    broken("keda.yaml", "\"judge:{native}:q:normal\"", "\"judge:native:q:normal\"",
           "stream 'judge:native:q:normal' is not a queue of pool 'native'");
    broken("keda.yaml", "\"judge:{python}:q:contest\"", "\"judge:{python}:q:high\"",
           "no trigger on judge:{python}:q:contest");
}

Test(kubernetes, a_wrong_group_fails)
{
    broken("keda.yaml", "consumerGroup: judged", "consumerGroup: workers", "consumerGroup 'workers'");
}

Test(kubernetes, a_short_termination_grace_fails)
{
    broken("judged-native.yaml", "terminationGracePeriodSeconds: 90", "terminationGracePeriodSeconds: 30",
           "terminationGracePeriodSeconds 30 must exceed judged's grace + lease (60 s)");
    /* a longer grace in the config is caught the same way */
    broken("judged-config.yaml", "grace: 30s", "grace: 80s", "must exceed judged's grace + lease (110 s)");
}

Test(kubernetes, a_dangling_reference_fails)
{
    broken("keda.yaml", "    name: judged-java\n  pollingInterval", "    name: judged-jav\n  pollingInterval",
           "scaleTargetRef names no Deployment of these files in namespace judge: 'judged-jav'");
    broken("redis-secret.yaml", "keda-password:", "keda-pass:", "no Secret 'judged-redis' with key 'keda-password'");
    broken("judged-python.yaml", "value: /etc/judged/python.yaml", "value: /etc/judged/py.yaml",
           "no ConfigMap volume mounted there holds 'py.yaml'");
}

Test(kubernetes, an_unknown_kind_or_missing_field_fails)
{
    broken("judged-java.yaml", "apiVersion: apps/v1", "apiVersion: extensions/v1beta1",
           "unknown apiVersion/kind pair 'extensions/v1beta1' 'Deployment'");
    broken("keda.yaml", "  minReplicaCount: 1\n  maxReplicaCount: 20", "  minReplicaCount: 0\n  maxReplicaCount: 20",
           "minReplicaCount must be at least 1");
}

Test(kubernetes, an_unquoted_trigger_value_fails)
{
    broken("keda.yaml", "lagCount: \"2\"", "lagCount: 2", "trigger metadata lagCount: 2 must be a quoted string");
}

Test(kubernetes, a_bad_judged_config_fails)
{
    broken("judged-config.yaml", "slots: 2, max_queue", "slots: many, max_queue", "judged refuses it");
    broken("judged-config.yaml", "    grace: 30s\n    first_slot: 100",
           "    grace: 30s\n    host: judge-1\n    first_slot: 100", "sets host:");
    broken("judged-config.yaml", "languages: [python3]", "languages: [python4]",
           "language 'python4' has no language file");
}

Test(kubernetes, a_wrong_hpa_metric_fails)
{
    broken("prometheus-adapter/hpa.yaml", "pool: java", "pool: jav",
           "metric selector pool 'jav' is not the Deployment's pool 'java'");
    broken("prometheus-adapter/hpa.yaml", "name: judged_queue_lag", "name: judged_queue_length",
           "external metric 'judged_queue_length'");
}
