/*
 * net.c - one persistent, empty network namespace per box slot.
 *
 * A box gets no network but its own loopback. Creating a network namespace
 * costs ~0.7 ms here (much more on some kernels, where it takes a global
 * lock and its teardown is deferred), so each slot creates one on first use,
 * brings its loopback up, and keeps it: a long-lived process (judged, the
 * runner) holds an fd; a short-lived one (the judge-sandbox CLI) pins it by
 * bind-mounting its nsfs file at <slot dir>/net, as `ip netns` does, and the
 * next invocation opens that file. Runs setns(2) into it. Only the CLI pins:
 * a pin is a mount of the host, and every box starts from a copy of the
 * host's mount table, so a thousand pins would slow every box down (measured:
 * clone 0.13 ms with 20 host mounts, 0.73 ms with 500).
 *
 * Slots never share one: a server left listening in box 3 cannot be reached
 * from box 4, and all processes of a run die with it.
 *
 * Socket buffers are kernel memory. Cgroup v2 charges them to the box's
 * memory; v1 only to a separate TCP counter, once it has a limit (cgroup1.c
 * sets one). On top of that each slot's namespace caps what one TCP socket
 * may buffer (net.ipv4.tcp_rmem/tcp_wmem are per namespace; the keeper sets
 * them when it joins): 1 MiB each way instead of the host's 4-6 MiB.
 *
 * A namespace keeps what its runs did: counters (/proc/net/snmp), sockets
 * in TIME_WAIT that block a port for a minute, the state of ephemeral port
 * choice. So a run must start in a namespace no run has used: the keeper
 * checks its loopback's packet counters after every run (and when it
 * starts), and when they moved, makes itself a fresh namespace (~0.7 ms,
 * after the report, and only after a run that used the network at all).
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

#define NSFS_MAGIC_NUMBER 0x6e736673

static bool is_netns(int fd)
{
    struct statfs st;
    return fstatfs(fd, &st) == 0 && st.f_type == NSFS_MAGIC_NUMBER;
}

static int loopback_up(void)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return -1;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    int rc = ioctl(s, SIOCGIFFLAGS, &ifr);
    if (rc == 0) {
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        rc = ioctl(s, SIOCSIFFLAGS, &ifr);
    }
    close(s);
    return rc;
}

struct holder {
    int ready_wr;
    pid_t creator;
};

/* The child: says whether lo came up, then holds the namespace open until
 * its creator kills it. It is a copy of its creator without exec: it drops
 * every other fd at once (a copy of another box's control socket kept the
 * keeper at its end waiting forever), and dies with the creating thread (a
 * judged SIGKILLed between the clone and the kill left it pausing forever). */
static int netns_holder(void *arg)
{
    const struct holder *h = arg;
    sb_close_all_but(h->ready_wr, -1);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != h->creator)
        return 1;
    char ok = loopback_up() == 0 ? 'y' : 'n';
    if (write(h->ready_wr, &ok, 1) != 1)
        return 1;
    pause();
    return 0;
}

/* A short-lived child enters a new network namespace and brings lo up; we
 * open the namespace (and pin it at pin_path, if given) while it lives. */
static int create_netns(const char *pin_path, char *err, size_t len)
{
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) < 0)
        return -1;
    struct holder h = {.ready_wr = ready[1], .creator = getpid()};
    pid_t pid = sb_clone(netns_holder, &h, CLONE_NEWNET | SIGCHLD, NULL);
    if (pid < 0) {
        sb_errf(err, len, "cannot create a network namespace: %s", strerror(errno));
        close(ready[0]);
        close(ready[1]);
        return -1;
    }
    close(ready[1]);
    char ok = 'n';
    int fd = -1;
    char ns[64];
    snprintf(ns, sizeof ns, "/proc/%d/ns/net", (int)pid);
    if (read(ready[0], &ok, 1) != 1 || ok != 'y')
        sb_errf(err, len, "cannot bring up loopback in the box network namespace");
    else if (pin_path && mount(ns, pin_path, NULL, MS_BIND, NULL) < 0)
        sb_errf(err, len, "cannot pin network namespace at %s: %s", pin_path, strerror(errno));
    else if ((fd = open(ns, O_RDONLY | O_CLOEXEC)) < 0)
        sb_errf(err, len, "cannot open %s: %s", ns, strerror(errno));
    close(ready[0]);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return fd;
}

/* True when the loopback of our namespace has carried a packet. */
static bool loopback_used(void)
{
    char buf[2048];
    if (sb_read_file("/proc/net/dev", buf, sizeof buf) < 0)
        return true;  /* cannot tell: take a fresh one */
    const char *lo = strstr(buf, " lo:");
    unsigned long long rx_bytes, rx_packets, tx_bytes, tx_packets;
    if (!lo || sscanf(lo + 4, "%llu %llu %*u %*u %*u %*u %*u %*u %llu %llu", &rx_bytes,
                      &rx_packets, &tx_bytes, &tx_packets) != 4)
        return true;
    return rx_packets || tx_packets;
}

int net_renew_if_used(void)
{
    if (!loopback_used())
        return 0;
    if (unshare(CLONE_NEWNET) < 0 || loopback_up() < 0 || net_cap_buffers() < 0)
        return -1;
    return 1;
}

/* Without this, every later process (the CLI without its server) would
 * start from the used namespace and pay for a fresh one at each start. */
int net_repin(const char *slot_dir, pid_t pid)
{
    char path[PATH_MAX + 16], ns[64];
    snprintf(path, sizeof path, "%s/net", slot_dir);
    snprintf(ns, sizeof ns, "/proc/%d/ns/net", (int)pid);
    umount2(path, MNT_DETACH);
    return mount(ns, path, NULL, MS_BIND, NULL);
}

int net_cap_buffers(void)
{
    /* min default max; the defaults are the kernel's own */
    if (sb_write_file("/proc/sys/net/ipv4/tcp_rmem", "4096 131072 1048576") < 0 ||
        sb_write_file("/proc/sys/net/ipv4/tcp_wmem", "4096 16384 1048576") < 0)
        return errno == ENOENT ? 0 : -1;  /* no IPv4 in this kernel: nothing to cap */
    return 0;
}

int net_slot_open(const char *slot_dir, bool pin, char *err, size_t len)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/net", slot_dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && is_netns(fd))
        return fd;  /* pinned by an earlier process */
    if (fd >= 0)
        close(fd);
    if (!pin)
        return create_netns(NULL, err, len);
    if ((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) < 0) {
        sb_errf(err, len, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    close(fd);
    return create_netns(path, err, len);
}
