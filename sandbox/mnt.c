/*
 * mnt.c - the box's filesystem.
 *
 * The keeper builds the root once, in its own mount namespace, then enters
 * it with pivot_root:
 *
 *   /              fresh tmpfs, read-only once built
 *   /usr           read-only bind of the host's; /bin, /lib, /lib64, /sbin
 *                  become symlinks where the host has merged /usr, else binds
 *   /etc/ld.so.cache, /etc/alternatives   read-only binds (when present)
 *   /dev           null zero full random urandom (device nodes made here,
 *                  cheaper than binds), fd/stdin/stdout/stderr links, and
 *                  shm -> /tmp so POSIX shared memory shares /tmp's bound
 *   /proc          proc of the box's pid namespace, hidepid=invisible: a
 *                  program sees its own run's processes, not the keeper
 *
 * Each run then gets, and loses again when it ends:
 *   /tmp           a fresh private tmpfs, size-limited, charged to the box,
 *                  noexec (so is /dev/shm, a link to it); kept for the next
 *                  run only if this one made no entry in it
 *   /box           the work directory (read-write), or a fresh noexec tmpfs
 *   extra mounts   read-only unless asked; mount points are made on the fly
 *
 * The supervisor opens the work directory and each extra mount as a detached
 * mount tree (open_tree) and sets its flags there; the keeper only moves the
 * trees into place. So the keeper never looks a host path up while the box's
 * own files are visible, and a symlink a program left in a work directory
 * can only point inside the box (mount points under /box are still checked
 * for them, so a mount lands where it was asked to). The host paths a box
 * writes (the work directory, writable mounts) are themselves resolved
 * without following any symlink, and the work directory is given to the
 * box's uid through the same fd it is cloned from: a link a program left
 * for its caller's next run leads nowhere.
 *
 * Everything is mounted nosuid and nodev except the root's device nodes, and
 * the host's root is detached after pivot_root. Mount events never propagate
 * back to the host: the namespace is made private first. The keeper side
 * runs in a clone of the supervisor, so it neither allocates nor prints:
 * errors go to err.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <sys/inotify.h>
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

/* ---- the root, built once by the keeper ------------------------------ */

static int in_root(char *out, size_t outlen, const char *root, const char *path)
{
    if (snprintf(out, outlen, "%s%s", root, path) >= (int)outlen) {
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

static int bind_ro(const char *host, const char *target, bool is_dir, char *err, size_t len)
{
    if (make_mountpoint(target, is_dir) < 0)
        return fail(err, len, "cannot make mount point", target);
    if (mount(host, target, NULL, MS_BIND, NULL) < 0)
        return fail(err, len, "cannot bind", host);
    if (mount(NULL, target, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV,
              NULL) < 0)
        return fail(err, len, "cannot restrict", target);
    return 0;
}

/* A host entry that is a symlink (merged /usr) becomes the same symlink. */
static int copy_or_bind(const char *root, const char *path, char *err, size_t len)
{
    char target[PATH_MAX], link[PATH_MAX];
    struct stat st;
    if (lstat(path, &st) < 0)
        return 0;  /* the host has no such thing: neither has the box */
    if (in_root(target, sizeof target, root, path) < 0)
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
    return bind_ro(path, target, S_ISDIR(st.st_mode), err, len);
}

static int make_dev(const char *root, char *err, size_t len)
{
    static const struct { const char *name; unsigned minor; } nodes[] = {
        {"null", 3}, {"zero", 5}, {"full", 7}, {"random", 8}, {"urandom", 9}};
    static const struct { const char *name, *target; } links[] = {
        {"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"},
        {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"}, {"shm", "/tmp"}};
    char path[SB_ROOT_MAX + 32];
    snprintf(path, sizeof path, "%s/dev", root);
    if (mkdir(path, 0755) < 0)
        return fail(err, len, "cannot make", path);
    for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++) {
        snprintf(path, sizeof path, "%s/dev/%s", root, nodes[i].name);
        if (mknod(path, S_IFCHR | 0666, makedev(1, nodes[i].minor)) < 0 || chmod(path, 0666) < 0)
            return fail(err, len, "cannot make device", path);
    }
    for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
        snprintf(path, sizeof path, "%s/dev/%s", root, links[i].name);
        if (symlink(links[i].target, path) < 0)
            return fail(err, len, "cannot link", path);
    }
    return 0;
}

static int make_dirs(const char *root, char *err, size_t len)
{
    static const struct { const char *name; mode_t mode; } dirs[] = {
        {"/proc", 0555}, {"/tmp", 0755}, {"/box", 0755}};
    char path[SB_ROOT_MAX + 32];
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(path, sizeof path, "%s%s", root, dirs[i].name);
        if (mkdir(path, dirs[i].mode) < 0)
            return fail(err, len, "cannot make", path);
    }
    snprintf(path, sizeof path, "%s/proc", root);
    if (mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
              "hidepid=invisible") < 0)
        return fail(err, len, "cannot mount", path);
    return 0;
}

int mnt_build_root(const char *root, char *err, size_t len)
{
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return fail(err, len, "cannot make mounts private", "/");
    if (mount("tmpfs", root, "tmpfs", MS_NOSUID, "size=1m,mode=0755") < 0)
        return fail(err, len, "cannot mount root tmpfs on", root);
    for (size_t i = 0; i < sizeof top_dirs / sizeof *top_dirs; i++)
        if (copy_or_bind(root, top_dirs[i], err, len) < 0)
            return -1;
    for (size_t i = 0; i < sizeof etc_entries / sizeof *etc_entries; i++)
        if (copy_or_bind(root, etc_entries[i], err, len) < 0)
            return -1;
    if (make_dev(root, err, len) < 0 || make_dirs(root, err, len) < 0)
        return -1;
    if (mount(NULL, root, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID, NULL) < 0)
        return fail(err, len, "cannot make read-only", root);
    /* pivot_root(".", "."): the old root ends up on top, then detached. */
    if (chdir(root) < 0)
        return fail(err, len, "cannot enter", root);
    if (syscall(SYS_pivot_root, ".", ".") < 0)
        return fail(err, len, "pivot_root failed for", root);
    if (umount2(".", MNT_DETACH) < 0)
        return fail(err, len, "cannot detach the host root from", root);
    if (chdir("/") < 0)
        return fail(err, len, "cannot enter", "/");
    return 0;
}

/* ---- one run's mounts, attached by the keeper ------------------------ */

/* noexec: the only places a run can write (/tmp, /dev/shm, a private /box)
 * never hold a program it could start: native code a runtime writes there
 * cannot run. A work directory from the caller is the caller's choice. */
static int mount_tmpfs(const char *target, uint64_t size, const char *mode, char *err, size_t len)
{
    char opts[64];
    snprintf(opts, sizeof opts, "size=%llu,mode=%s", (unsigned long long)size, mode);
    if (mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts) < 0)
        return fail(err, len, "cannot mount tmpfs on", target);
    return 0;
}

static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

/* A run may have left symlinks in a work directory it shared with this one:
 * a mount point under /box must not be reached through one. Nothing else
 * runs in the box meanwhile, so checking once is enough. */
static int through_symlink(const char *target)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", target);
    for (size_t i = 1;; i++) {
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

/* Makes a missing mount point; outside /box that means writing to the
 * read-only root for a moment. */
static int ensure_mountpoint(const char *target, bool is_dir, char *err, size_t len)
{
    struct stat st;
    if (lstat(target, &st) == 0 && !S_ISLNK(st.st_mode))
        return 0;
    bool in_box = under(target, "/box");
    if (in_box && through_symlink(target) < 0)
        return fail(err, len, "refusing mount point", target);
    if (!in_box && mount(NULL, "/", NULL, MS_REMOUNT | MS_NOSUID, NULL) < 0)
        return fail(err, len, "cannot make writable", "/");
    int rc = make_mountpoint(target, is_dir);
    int saved = errno;
    if (!in_box)
        mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID, NULL);
    errno = saved;
    return rc < 0 ? fail(err, len, "cannot make mount point", target) : 0;
}

static int move_tree(int fd, const char *target, char *err, size_t len)
{
    if (syscall(SYS_move_mount, fd, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) < 0)
        return fail(err, len, "cannot mount at", target);
    return 0;
}

/* A tmpfs of size at target, reusing the one already there when it has
 * that size (mounted fresh after the last run: see mnt_detach_run). */
/* Watches a fresh tmpfs' root for entries made in it; -1 when the keeper
 * has no inotify instance (then it is renewed after every run). */
static int watch_root(int inotify_fd, const char *target)
{
    if (inotify_fd < 0)
        return -1;
    return inotify_add_watch(inotify_fd, target, IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM |
                                                 IN_DELETE | IN_ATTRIB | IN_ONLYDIR);
}

static int ensure_tmpfs(const char *target, uint64_t *mounted, int *wd, int inotify_fd,
                        uint64_t size, const char *mode, char *err, size_t len)
{
    if (*mounted == size)
        return 0;
    if (*mounted)
        umount2(target, MNT_DETACH);
    *mounted = 0;
    if (mount_tmpfs(target, size, mode, err, len) < 0)
        return -1;
    *wd = watch_root(inotify_fd, target);
    *mounted = size;
    return 0;
}

int mnt_attach_run(const struct mnt_run *m, struct mnt_state *st, int box_fd,
                   const int *extra_fd, char *err, size_t len)
{
    if (ensure_tmpfs("/tmp", &st->tmp_size, &st->tmp_wd, st->inotify_fd, m->tmp_size, "1777",
                     err, len) < 0)
        return -1;
    if (m->box_from_tree) {
        if (st->box_size)
            umount2("/box", MNT_DETACH);
        st->box_size = 0;
        if (move_tree(box_fd, "/box", err, len) < 0)
            return -1;
        st->box_tree = true;
    } else if (ensure_tmpfs("/box", &st->box_size, &st->box_wd, st->inotify_fd, m->box_size,
                            "0777", err, len) < 0) {
        return -1;  /* under an extra mount at /box itself, it does no harm */
    }
    for (size_t i = 0; i < m->extra_count; i++) {
        const char *target = m->extra[i].inside;
        if (ensure_mountpoint(target, m->extra[i].is_dir, err, len) < 0 ||
            move_tree(extra_fd[i], target, err, len) < 0)
            return -1;
        /* kept here, not read back from the request: by the time we undo
         * it the supervisor may be writing the next run's */
        snprintf(st->extra[st->extra_count++], sizeof st->extra[0], "%s", target);
    }
    return 0;
}

/* Which of the watched roots had an entry made, removed or changed since
 * the last look (events of watches gone with an unmounted tmpfs are
 * ignored). Reads into the stack: no allocation in the keeper. */
static void roots_used(const struct mnt_state *st, bool *tmp, bool *box)
{
    *tmp = st->inotify_fd < 0 || st->tmp_wd < 0;
    *box = st->inotify_fd < 0 || st->box_wd < 0;
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t n;
    while (st->inotify_fd >= 0 && (n = read(st->inotify_fd, buf, sizeof buf)) > 0)
        for (ssize_t at = 0; at < n;) {
            const struct inotify_event *e = (const void *)(buf + at);
            if (e->mask & IN_Q_OVERFLOW) {
                *tmp = *box = true;
            } else if (!(e->mask & IN_IGNORED)) {
                *tmp |= e->wd == st->tmp_wd;
                *box |= e->wd == st->box_wd;
            }
            at += (ssize_t)(sizeof *e + e->len);
        }
}

/* A tmpfs the run made no entry in is as it was, so it is kept (any file,
 * directory, socket or link made in it is an entry in its root or under a
 * directory that is; O_TMPFILE is refused, seccomp.c). Otherwise a fresh
 * one: tmpfs inode numbers count every file ever made in it, which would
 * tell the next run how many came before. */
static void renew_tmpfs(const char *target, uint64_t *mounted, int *wd, int inotify_fd,
                        const char *mode)
{
    char err[SB_ERR_MAX];
    umount2(target, MNT_DETACH);
    if (mount_tmpfs(target, *mounted, mode, err, sizeof err) < 0)
        *mounted = 0;  /* the next run mounts one itself, and says why if it cannot */
    else
        *wd = watch_root(inotify_fd, target);
}

void mnt_detach_run(struct mnt_state *st)
{
    while (st->extra_count > 0)
        umount2(st->extra[--st->extra_count], MNT_DETACH);
    if (st->box_tree)
        umount2("/box", MNT_DETACH);
    st->box_tree = false;
    /* after the report, so the next run does not wait for it */
    bool tmp_used, box_used;
    roots_used(st, &tmp_used, &box_used);
    if (st->box_size && box_used)
        renew_tmpfs("/box", &st->box_size, &st->box_wd, st->inotify_fd, "0777");
    if (st->tmp_size && tmp_used)
        renew_tmpfs("/tmp", &st->tmp_size, &st->tmp_wd, st->inotify_fd, "1777");
}

/* ---- the trees, opened by the supervisor ----------------------------- */

/* A host path a box will write, opened (O_PATH) without following any
 * symlink: a box can leave one in a directory it writes, and a caller that
 * passes a path through that directory next time would have root follow
 * it, to chown (the work directory) or mount writable whatever it names. */
static int open_writable_path(const char *host, bool dir, char *err, size_t len)
{
    struct open_how how = {.flags = O_PATH | O_CLOEXEC | (dir ? O_DIRECTORY : 0),
                           .resolve = RESOLVE_NO_SYMLINKS};
    int fd = (int)syscall(SYS_openat2, AT_FDCWD, host, &how, sizeof how);
    if (fd < 0 && errno == ELOOP)
        sb_errf(err, len, "%s %s: a symbolic link in the path (writable paths may have none)",
                dir ? "work directory" : "mount", host);
    else if (fd < 0)
        sb_errf(err, len, "%s %s: %s", dir ? "work directory" : "mount", host, strerror(errno));
    return fd;
}

/* The detached tree of host; owner >= 0 (the work directory) gets it first.
 * A writable one is reached without symlinks, and chowned and cloned
 * through the one fd, so nothing can be swapped in between. */
static int open_tree_fd(const char *host, bool writable, int owner, char *err, size_t len)
{
    int dirfd = AT_FDCWD, flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC;
    const char *path = host;
    if (writable) {
        if ((dirfd = open_writable_path(host, owner >= 0, err, len)) < 0)
            return -1;
        path = "";
        flags |= AT_EMPTY_PATH;
    }
    if (owner >= 0 && fchownat(dirfd, "", (uid_t)owner, (gid_t)owner, AT_EMPTY_PATH) < 0) {
        sb_errf(err, len, "cannot give %s to the box user: %s", host, strerror(errno));
        close(dirfd);
        return -1;
    }
    int fd = (int)syscall(SYS_open_tree, dirfd, path, flags);
    int saved = errno;
    if (dirfd >= 0)
        close(dirfd);
    if (fd < 0) {
        sb_errf(err, len, "mount %s: cannot open it as a mount tree: %s", host, strerror(saved));
        return -1;
    }
    struct mount_attr attr = {.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
                                          (writable ? 0 : MOUNT_ATTR_RDONLY)};
    if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH, &attr, sizeof attr) < 0) {
        sb_errf(err, len, "mount %s: cannot set its flags: %s", host, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int mnt_open_trees(const struct sandbox_job *job, uid_t uid, struct mnt_run *m, int *box_fd,
                   int extra_fd[MNT_MAX_EXTRA], char *err, size_t len)
{
    memset(m, 0, offsetof(struct mnt_run, extra));
    *box_fd = -1;
    m->tmp_size = job->limits.tmp_size ? job->limits.tmp_size : 64ULL << 20;
    m->box_size = m->tmp_size;
    if (job->mount_count > MNT_MAX_EXTRA) {
        sb_errf(err, len, "too many extra mounts (%zu, at most %d)", job->mount_count, MNT_MAX_EXTRA);
        return -1;
    }
    if (job->workdir) {
        if ((*box_fd = open_tree_fd(job->workdir, true, (int)uid, err, len)) < 0)
            return -1;
        m->box_from_tree = true;
    }
    for (size_t i = 0; i < job->mount_count; i++) {
        const struct sandbox_mount *sm = &job->mounts[i];
        const char *inside = sm->inside ? sm->inside : sm->host;
        struct stat st;
        if (!sm->host || sm->host[0] != '/' || inside[0] != '/' || strstr(inside, "..")) {
            sb_errf(err, len, "mount %s: paths must be absolute, without '..'",
                    sm->host ? sm->host : "(null)");
            return -1;
        }
        if (strlen(inside) >= sizeof m->extra[0].inside) {
            sb_errf(err, len, "mount %s: path in the box too long", sm->host);
            return -1;
        }
        if (stat(sm->host, &st) < 0) {
            if (sm->optional && errno == ENOENT)
                continue;
            sb_errf(err, len, "mount %s: %s", sm->host, strerror(errno));
            return -1;
        }
        size_t k = m->extra_count;
        if ((extra_fd[k] = open_tree_fd(sm->host, sm->writable, -1, err, len)) < 0)
            return -1;
        m->extra_count++;
        snprintf(m->extra[k].inside, sizeof m->extra[k].inside, "%s", inside);
        m->extra[k].is_dir = S_ISDIR(st.st_mode);
        if (!strcmp(inside, "/box") && !m->box_from_tree)
            m->box_covered = true;
    }
    return 0;
}
