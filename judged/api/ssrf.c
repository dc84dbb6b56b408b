/*
 * ssrf.c - where a webhook may be delivered (api.h, "callbacks"): only to
 * globally routable addresses, so that a callback URL cannot make judge-api
 * reach what only it can reach (Redis, a metadata service, the host's own
 * services, the private network).
 *
 * An allow-list by construction: IPv4 minus every special-purpose block of
 * the IANA registry (RFC 6890 and its updates), IPv6 only inside 2000::/3
 * (global unicast) minus its special blocks; an address that carries an
 * IPv4 one (v4-mapped, v4-compatible, NAT64 64:ff9b::/96, 6to4 2002::/16)
 * is judged by that IPv4 address, and Teredo (which hides one) is refused.
 * Then any address of this host's own interfaces (its public address too).
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <string.h>

#include "api.h"

struct v4_block {
    uint32_t net;
    int bits;
};

/* Not globally reachable (IANA IPv4 special-purpose registry). */
static const struct v4_block v4_special[] = {
    {0x00000000, 8},    /* "this network" */
    {0x0a000000, 8},    /* private */
    {0x64400000, 10},   /* shared address space (CGNAT) */
    {0x7f000000, 8},    /* loopback */
    {0xa9fe0000, 16},   /* link-local (cloud metadata at 169.254.169.254) */
    {0xac100000, 12},   /* private */
    {0xc0000000, 24},   /* IETF protocol assignments */
    {0xc0000200, 24},   /* documentation TEST-NET-1 */
    {0xc0586300, 24},   /* 6to4 relay anycast (deprecated) */
    {0xc0a80000, 16},   /* private */
    {0xc6120000, 15},   /* benchmarking */
    {0xc6336400, 24},   /* documentation TEST-NET-2 */
    {0xcb007100, 24},   /* documentation TEST-NET-3 */
    {0xe0000000, 4},    /* multicast */
    {0xf0000000, 4},    /* reserved, and the limited broadcast */
};

static bool v4_public(uint32_t a)
{
    for (size_t i = 0; i < sizeof v4_special / sizeof *v4_special; i++)
        if ((a >> (32 - v4_special[i].bits)) == (v4_special[i].net >> (32 - v4_special[i].bits)))
            return false;
    return true;
}

static uint32_t v4_at(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool prefix_is(const unsigned char *a, const unsigned char *p, int bits)
{
    int bytes = bits / 8, rest = bits % 8;
    if (memcmp(a, p, (size_t)bytes))
        return false;
    return !rest || (a[bytes] >> (8 - rest)) == (p[bytes] >> (8 - rest));
}

static bool v6_public(const unsigned char *a)
{
    /* prefixes, 16 bytes each (what the bit count leaves out is zero) */
    static const unsigned char zero[16], mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff},
                                         nat64[16] = {0x00, 0x64, 0xff, 0x9b},
                                         teredo[16] = {0x20, 0x01, 0x00, 0x00},   /* 2001::/32 */
                                         ietf[16] = {0x20, 0x01, 0x00, 0x00},     /* 2001::/23 */
                                         doc[16] = {0x20, 0x01, 0x0d, 0xb8},      /* 2001:db8::/32 */
                                         doc2[16] = {0x3f, 0xff},                 /* 3fff::/20 */
                                         sixto4[16] = {0x20, 0x02};               /* 2002::/16 */
    if (prefix_is(a, mapped, 96) || prefix_is(a, nat64, 96))
        return v4_public(v4_at(a + 12));
    if (prefix_is(a, zero, 96))   /* ::, ::1 and the deprecated v4-compatible ::a.b.c.d */
        return false;
    if (prefix_is(a, sixto4, 16))
        return v4_public(v4_at(a + 2));
    if ((a[0] & 0xe0) != 0x20)   /* outside 2000::/3: ULA, link-local, multicast, 64:ff9b:1::/48, ... */
        return false;
    return !prefix_is(a, teredo, 32) && !prefix_is(a, ietf, 23) && !prefix_is(a, doc, 32) &&
           !prefix_is(a, doc2, 20);
}

static bool same_addr(const struct sockaddr *x, const struct sockaddr *y)
{
    if (x->sa_family != y->sa_family)
        return false;
    if (x->sa_family == AF_INET)
        return ((const struct sockaddr_in *)x)->sin_addr.s_addr == ((const struct sockaddr_in *)y)->sin_addr.s_addr;
    return !memcmp(&((const struct sockaddr_in6 *)x)->sin6_addr, &((const struct sockaddr_in6 *)y)->sin6_addr, 16);
}

/* An address of one of this host's interfaces: a callback to the host's
 * public address reaches services listening on all addresses. */
static bool own_address(const struct sockaddr *sa)
{
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs))
        return true;   /* cannot tell: refuse */
    bool own = false;
    for (struct ifaddrs *i = ifs; i && !own; i = i->ifa_next)
        own = i->ifa_addr && same_addr(i->ifa_addr, sa);
    freeifaddrs(ifs);
    return own;
}

bool api_addr_public(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return v4_public(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr));
    if (sa->sa_family == AF_INET6)
        return v6_public(((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr);
    return false;
}

bool api_addr_deliverable(const struct sockaddr *sa)
{
    return api_addr_public(sa) && !own_address(sa);
}
