/*
 * mnt.c - the box's filesystem, built by the box's init in its own mount
 * namespace, then entered with pivot_root.
 *
 *   /              fresh tmpfs, made read-only once built
 *   /usr           read-only bind of the host's; /bin, /lib, /lib64, /sbin
 *                  become symlinks where the host has merged /usr, else binds
 *   /etc/ld.so.cache, /etc/alternatives   read-only binds (when present)
 *   /dev           null zero full random urandom (device nodes made here,
 *                  cheaper than binds), fd/stdin/stdout/stderr links, and
 *                  shm -> /tmp so POSIX shared memory shares /tmp's bound
 *   /proc          a fresh proc of the box's pid namespace: only its processes
 *   /tmp           private tmpfs, size-limited, charged to the box's cgroup
 *   /box           the work directory (read-write), or a private tmpfs
 *   extra mounts   read-only unless asked; their mount points are made on the
 *                  fly, also inside /box
 *
 * Everything is mounted nosuid and nodev except the root's device nodes, and
 * the host's root is detached after pivot_root. Mount events never propagate
 * back to the host: the namespace is made private first.
 *
 * This runs in the cloned child, so it neither allocates nor prints: paths
 * come prepared in struct mnt_plan, errors go to err.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"

#define RO_FLAGS (MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
#define RW_FLAGS (MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV)

static const char *const top_dirs[] = {"/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin"};
static const char *const etc_entries[] = {"/etc/ld.so.cache", "/etc/alternatives"};

static int fail(char *err, size_t len, const char *what, const char *path)
{
    sb_errf(err, len, "box setup: %s %s: %s", what, path, strerror(errno));
    return -1;
}

static int in_root(char *out, size_t outlen, const struct mnt_plan *p, const char *path)
{
    if (snprintf(out, outlen, "%s%s", p->root, path) >= (int)outlen) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

static int make_mountpoint(const char *target, bool is_dir)
{
    if (is_dir)
        return sb_mkdir_p(target, 0755);
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", target);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = '\0';
        if (sb_mkdir_p(parent, 0755) < 0)
            return -1;
    }
    int fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno == EEXIST ? 0 : -1;
    close(fd);
    return 0;
}

static int bind(const char *host, const char *target, bool is_dir, bool writable,
                char *err, size_t len)
{
    if (make_mountpoint(target, is_dir) < 0)
        return fail(err, len, "cannot make mount point", target);
    if (mount(host, target, NULL, MS_BIND, NULL) < 0)
        return fail(err, len, "cannot bind", host);
    if (mount(NULL, target, NULL, writable ? RW_FLAGS : RO_FLAGS, NULL) < 0)
        return fail(err, len, "cannot restrict", target);
    return 0;
}

/* A host entry that is a symlink (merged /usr) becomes the same symlink. */
static int copy_or_bind(const struct mnt_plan *p, const char *path, char *err, size_t len)
{
    char target[PATH_MAX], link[PATH_MAX];
    struct stat st;
    if (lstat(path, &st) < 0)
        return 0;  /* the host has no such thing: neither has the box */
    if (in_root(target, sizeof target, p, path) < 0)
        return fail(err, len, "path too long", path);
    if (S_ISLNK(st.st_mode)) {
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n < 0)
            return fail(err, len, "cannot read link", path);
        link[n] = '\0';
        if (symlink(link, target) < 0 && errno != EEXIST)
            return fail(err, len, "cannot link", target);
        return 0;
    }
    return bind(path, target, S_ISDIR(st.st_mode), false, err, len);
}

static int make_dev(const struct mnt_plan *p, char *err, size_t len)
{
    static const struct { const char *name; unsigned minor; } nodes[] = {
        {"null", 3}, {"zero", 5}, {"full", 7}, {"random", 8}, {"urandom", 9}};
    static const struct { const char *name, *target; } links[] = {
        {"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"},
        {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"}, {"shm", "/tmp"}};
    char path[SB_ROOT_MAX + 32];
    snprintf(path, sizeof path, "%s/dev", p->root);
    if (mkdir(path, 0755) < 0)
        return fail(err, len, "cannot make", path);
    for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++) {
        snprintf(path, sizeof path, "%s/dev/%s", p->root, nodes[i].name);
        if (mknod(path, S_IFCHR | 0666, makedev(1, nodes[i].minor)) < 0 || chmod(path, 0666) < 0)
            return fail(err, len, "cannot make device", path);
    }
    for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
        snprintf(path, sizeof path, "%s/dev/%s", p->root, links[i].name);
        if (symlink(links[i].target, path) < 0)
            return fail(err, len, "cannot link", path);
    }
    return 0;
}

static int mount_tmpfs(const char *target, uint64_t size, const char *mode, char *err, size_t len)
{
    char opts[64];
    snprintf(opts, sizeof opts, "size=%llu,mode=%s", (unsigned long long)size, mode);
    if (mkdir(target, 0755) < 0 && errno != EEXIST)
        return fail(err, len, "cannot make", target);
    if (mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
        return fail(err, len, "cannot mount tmpfs on", target);
    return 0;
}

static int mount_private_dirs(const struct mnt_plan *p, char *err, size_t len)
{
    char path[SB_ROOT_MAX + 32];
    snprintf(path, sizeof path, "%s/proc", p->root);
    if (mkdir(path, 0555) < 0)
        return fail(err, len, "cannot make", path);
    if (mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, NULL) < 0)
        return fail(err, len, "cannot mount", path);
    snprintf(path, sizeof path, "%s/tmp", p->root);
    if (mount_tmpfs(path, p->tmp_size, "1777", err, len) < 0)
        return -1;
    snprintf(path, sizeof path, "%s/box", p->root);
    if (!p->workdir[0])
        return mount_tmpfs(path, p->box_size, "0777", err, len);
    return bind(p->workdir, path, true, true, err, len);
}

static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return !strncmp(path, dir, n) && path[n] == '/';
}

/* Is extra mount i inside a directory the box may have written to (the work
 * directory at /box, or an earlier writable extra mount)? */
static bool in_box_writable(const struct mnt_plan *p, size_t i)
{
    if (under(p->extra[i].inside, "/box"))
        return true;
    for (size_t k = 0; k < i; k++)
        if (p->extra[k].writable && under(p->extra[i].inside, p->extra[k].inside))
            return true;
    return false;
}

/* Such a directory is a host directory that an earlier run could fill with
 * symlinks, and init still sees the host's tree while it builds the box, as
 * root: following such a link would create files or mount outside the box.
 * Nothing else writes there meanwhile, so checking the existing part of the
 * path once is enough. */
static int through_symlink(const struct mnt_plan *p, const char *target)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", target);
    for (size_t i = strlen(p->root) + 1;; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        char c = path[i];
        path[i] = '\0';
        struct stat st;
        if (lstat(path, &st) < 0)
            return errno == ENOENT ? 0 : -1;  /* the rest will be made fresh */
        if (S_ISLNK(st.st_mode)) {
            errno = ELOOP;
            return -1;
        }
        if (!c)
            return 0;
        path[i] = c;
    }
}

static int mount_extras(const struct mnt_plan *p, char *err, size_t len)
{
    char target[PATH_MAX];
    for (size_t i = 0; i < p->extra_count; i++) {
        if (in_root(target, sizeof target, p, p->extra[i].inside) < 0)
            return fail(err, len, "path too long", p->extra[i].inside);
        if (in_box_writable(p, i) && through_symlink(p, target) < 0)
            return fail(err, len, "refusing mount point", p->extra[i].inside);
        if (bind(p->extra[i].host, target, p->extra[i].is_dir, p->extra[i].writable, err, len) < 0)
            return -1;
    }
    return 0;
}

static int build_root(const struct mnt_plan *p, char *err, size_t len)
{
    if (mount("tmpfs", p->root, "tmpfs", MS_NOSUID, "size=1m,mode=0755") < 0)
        return fail(err, len, "cannot mount root tmpfs on", p->root);
    for (size_t i = 0; i < sizeof top_dirs / sizeof *top_dirs; i++)
        if (copy_or_bind(p, top_dirs[i], err, len) < 0)
            return -1;
    for (size_t i = 0; i < sizeof etc_entries / sizeof *etc_entries; i++)
        if (copy_or_bind(p, etc_entries[i], err, len) < 0)
            return -1;
    if (make_dev(p, err, len) < 0 || mount_private_dirs(p, err, len) < 0)
        return -1;
    return mount_extras(p, err, len);
}

int mnt_enter_root(const struct mnt_plan *p, char *err, size_t len)
{
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return fail(err, len, "cannot make mounts private", "/");
    if (build_root(p, err, len) < 0)
        return -1;
    if (mount(NULL, p->root, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID, NULL) < 0)
        return fail(err, len, "cannot make read-only", p->root);
    /* pivot_root(".", "."): the old root ends up on top, then detached. */
    if (chdir(p->root) < 0)
        return fail(err, len, "cannot enter", p->root);
    if (syscall(SYS_pivot_root, ".", ".") < 0)
        return fail(err, len, "pivot_root failed for", p->root);
    if (umount2(".", MNT_DETACH) < 0)
        return fail(err, len, "cannot detach the host root from", p->root);
    if (chdir("/box") < 0)
        return fail(err, len, "cannot enter", "/box");
    return 0;
}

/* Runs in the supervisor: validates the job's mounts and fixes every path. */
int mnt_plan_init(struct mnt_plan *plan, const char *root, const struct sandbox_job *job,
                  char *err, size_t len)
{
    memset(plan, 0, sizeof *plan);
    if (snprintf(plan->root, sizeof plan->root, "%s", root) >= (int)sizeof plan->root) {
        sb_errf(err, len, "box root path too long: %s", root);
        return -1;
    }
    if (job->workdir && snprintf(plan->workdir, sizeof plan->workdir, "%s", job->workdir) >=
                            (int)sizeof plan->workdir) {
        sb_errf(err, len, "work directory path too long");
        return -1;
    }
    plan->tmp_size = job->limits.tmp_size ? job->limits.tmp_size : 64ULL << 20;
    plan->box_size = plan->tmp_size;
    if (job->mount_count > MNT_MAX_EXTRA) {
        sb_errf(err, len, "too many extra mounts (%zu, at most %d)", job->mount_count, MNT_MAX_EXTRA);
        return -1;
    }
    for (size_t i = 0; i < job->mount_count; i++) {
        const struct sandbox_mount *m = &job->mounts[i];
        const char *inside = m->inside ? m->inside : m->host;
        struct stat st;
        if (!m->host || m->host[0] != '/' || inside[0] != '/' || strstr(inside, "..")) {
            sb_errf(err, len, "mount %s: paths must be absolute, without '..'",
                    m->host ? m->host : "(null)");
            return -1;
        }
        if (stat(m->host, &st) < 0) {
            if (m->optional && errno == ENOENT)
                continue;
            sb_errf(err, len, "mount %s: %s", m->host, strerror(errno));
            return -1;
        }
        size_t k = plan->extra_count++;
        snprintf(plan->extra[k].host, sizeof plan->extra[k].host, "%s", m->host);
        snprintf(plan->extra[k].inside, sizeof plan->extra[k].inside, "%s", inside);
        plan->extra[k].writable = m->writable;
        plan->extra[k].is_dir = S_ISDIR(st.st_mode);
    }
    return 0;
}
