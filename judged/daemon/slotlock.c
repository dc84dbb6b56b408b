/* slotlock.c - one machine, one judged per sandbox slot.
 *
 * Sandbox slots (their locks, cgroups and uids) are machine-wide: two
 * judged whose ranges overlap would both start, and their jobs would fail
 * with "box busy" until dead-lettered. So a judged holds its slots as
 * fcntl record locks on /run/judged/slots.lock, one byte per slot (byte N =
 * slot N), taken before it starts anything. Record locks belong to the
 * process: the kernel drops them when it exits, even by SIGKILL, so there is
 * nothing stale to clean up; they are not inherited by fork, so the
 * embedded redis-server (which outlives a killed judged) holds none. The
 * catch of POSIX locks, that closing ANY descriptor of the file drops them
 * all, is why only this file opens slots.lock, once, and keeps it open
 * (judged.slot_fd) until exit.
 *
 * Who holds a slot: F_GETLK names the pid of a conflicting lock, and each
 * judged writes /run/judged/judged-PID.slots (pid, host, config, slots), so
 * the refusal names the other judged, its configuration and its slots.
 * Files of processes that are gone (killed) are removed by the next start.
 *
 * SIGHUP: the new configuration's range is locked before the configuration
 * is installed (a reload onto another judged's slots is refused and the old
 * configuration kept); while pools drain and reopen both ranges are held,
 * and once the reload is done only the new one (slotlock_keep).
 *
 * Only the main thread calls these (start, reload, exit). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "daemon.h"

#define LOCK_DIR "/run/judged"
#define LOCK_FILE LOCK_DIR "/slots.lock"

/* the slots a configuration uses: [*lo, *hi) */
static void cfg_range(const struct jd_config *cfg, int *lo, int *hi)
{
    *lo = cfg->first_slot;
    *hi = pool_first_slot(cfg, cfg->npools);
}

static void holder_path(pid_t pid, char *buf, size_t len)
{
    snprintf(buf, len, "%s/judged-%d.slots", LOCK_DIR, (int)pid);
}

/* forget the files of judged processes that are gone */
static void remove_stale_holders(void)
{
    DIR *d = opendir(LOCK_DIR);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        int pid;
        char tail[16];
        if (sscanf(e->d_name, "judged-%d.%15s", &pid, tail) != 2 || strcmp(tail, "slots") || pid <= 0)
            continue;
        if (kill(pid, 0) && errno == ESRCH) {
            char path[300];
            holder_path(pid, path, sizeof path);
            unlink(path);
        }
    }
    if (d)
        closedir(d);
}

/* judged-PID.slots: who we are and what we hold, replaced atomically */
static void write_holder(const struct jd_config *cfg, const char *slots)
{
    char path[300], tmp[320], conf[PATH_MAX];
    holder_path(getpid(), path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (!realpath(cfg->path, conf))
        snprintf(conf, sizeof conf, "%s", cfg->path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return; /* the lock is what counts; without the file a refusal names the pid only */
    fprintf(f, "pid: %d\nhost: %s\nconfig: %s\nslots: %s\n", (int)getpid(), judged.host, conf, slots);
    if (fclose(f) == 0)
        rename(tmp, path);
    else
        unlink(tmp);
}

static void range_text(int lo, int hi, char *buf, size_t len)
{
    snprintf(buf, len, "%d..%d", lo, hi - 1);
}

/* "judged pid 12 (host h, config /etc/judged/judged.yaml, slots 0..7)" from
 * the holder's file, or what is known without it */
static void describe_holder(pid_t pid, char *buf, size_t len)
{
    char path[300], line[PATH_MAX + 32], host[256] = "?", conf[PATH_MAX] = "?", slots[256] = "?";
    if (pid <= 0) {
        snprintf(buf, len, "a process outside this pid namespace (see %s/judged-*.slots)", LOCK_DIR);
        return;
    }
    holder_path(pid, path, sizeof path);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!strncmp(line, "host: ", 6))
            snprintf(host, sizeof host, "%.255s", line + 6);
        else if (!strncmp(line, "config: ", 8))
            snprintf(conf, sizeof conf, "%.4000s", line + 8);
        else if (!strncmp(line, "slots: ", 7))
            snprintf(slots, sizeof slots, "%.255s", line + 7);
    }
    if (f) {
        fclose(f);
        snprintf(buf, len, "judged pid %d (host %s, config %s, slots %s)", (int)pid, host, conf, slots);
    } else {
        snprintf(buf, len, "process %d (no %s: not a judged of this version?)", (int)pid, path);
    }
}

static int open_lock(char *err, size_t errlen)
{
    if (judged.slot_fd >= 0)
        return 0;
    if (common_mkdir_p(LOCK_DIR, 0755) && errno != EEXIST) {
        snprintf(err, errlen, "cannot lock the sandbox slots: %s: %s", LOCK_DIR, strerror(errno));
        return -1;
    }
    int fd = open(LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot lock the sandbox slots: %s: %s", LOCK_FILE, strerror(errno));
        return -1;
    }
    judged.slot_fd = fd;
    remove_stale_holders();
    return 0;
}

int slotlock_acquire(const struct jd_config *cfg, char *err, size_t errlen)
{
    int lo, hi;
    cfg_range(cfg, &lo, &hi);
    if (open_lock(err, errlen))
        return -1;
    if (hi > lo) {
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = lo, .l_len = hi - lo};
        if (fcntl(judged.slot_fd, F_SETLK, &fl)) {
            int e = errno;
            struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = lo, .l_len = hi - lo};
            char mine[64], holder[PATH_MAX + 600];
            range_text(lo, hi, mine, sizeof mine);
            if ((e != EAGAIN && e != EACCES) || fcntl(judged.slot_fd, F_GETLK, &who) || who.l_type == F_UNLCK) {
                snprintf(err, errlen, "cannot lock sandbox slots %s in %s: %s", mine, LOCK_FILE,
                         strerror(e));
                return -1;
            }
            describe_holder(who.l_pid, holder, sizeof holder);
            /* the first overlap: F_GETLK reports the holder's whole lock */
            long long end = who.l_len ? (long long)who.l_start + who.l_len : hi;
            long long from = who.l_start > lo ? (long long)who.l_start : lo;
            long long to = end < hi ? end : hi;
            snprintf(err, errlen, "%s: key 'first_slot': this judged's sandbox slots are %s (first_slot "
                     "%d, then 2 per slot of each pool), and slots %lld..%lld are held by %s; give "
                     "each judged on this machine its own range", cfg->path, mine, cfg->first_slot,
                     from, to - 1, holder);
            return -1;
        }
    }
    char slots[160], now[64];
    range_text(lo, hi, now, sizeof now);
    if (judged.slot_hi > judged.slot_lo && (judged.slot_lo != lo || judged.slot_hi != hi)) {
        char old[64];
        range_text(judged.slot_lo, judged.slot_hi, old, sizeof old);
        snprintf(slots, sizeof slots, "%s (and %s until a reload is done)", hi > lo ? now : "none", old);
    } else {
        snprintf(slots, sizeof slots, "%s", hi > lo ? now : "none");
    }
    write_holder(cfg, slots);
    return 0;
}

void slotlock_keep(const struct jd_config *cfg)
{
    int lo, hi;
    cfg_range(cfg, &lo, &hi);
    if (judged.slot_fd < 0)
        return;
    /* everything outside [lo, hi): [0, lo) and [hi, end of any range) */
    struct flock below = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = lo};
    struct flock above = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = hi > lo ? hi : 0,
                          .l_len = 0};
    if (lo > 0 && hi > lo)
        fcntl(judged.slot_fd, F_SETLK, &below);
    fcntl(judged.slot_fd, F_SETLK, &above);
    judged.slot_lo = lo;
    judged.slot_hi = hi;
    char slots[64];
    range_text(lo, hi, slots, sizeof slots);
    write_holder(cfg, hi > lo ? slots : "none");
}

void slotlock_release(void)
{
    if (judged.slot_fd < 0)
        return;
    char path[300];
    holder_path(getpid(), path, sizeof path);
    unlink(path);
    close(judged.slot_fd); /* drops the locks */
    judged.slot_fd = -1;
}
