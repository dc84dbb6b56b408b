/* test_ssrf.c - where webhooks may go (judged/api/ssrf.c), address by
 * address: the special-purpose blocks of IPv4 and IPv6 the IANA registries
 * list, addresses that carry an IPv4 one, and this host's own (issue 25,
 * item 8: documentation and benchmarking ranges, the host's addresses and
 * several IPv6 transition forms got through). Label unit. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <string.h>

#include "api.h"

static bool is_public(const char *text)
{
    struct sockaddr_storage ss = {0};
    if (strchr(text, ':')) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        cr_assert_eq(inet_pton(AF_INET6, text, &a->sin6_addr), 1, "%s", text);
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        cr_assert_eq(inet_pton(AF_INET, text, &a->sin_addr), 1, "%s", text);
    }
    return api_addr_public((struct sockaddr *)&ss);
}

Test(ssrf, ipv4_special_purpose_blocks_are_refused)
{
    const char *refused[] = {"0.0.0.0", "0.1.2.3", "10.0.0.1", "100.64.0.1", "100.127.255.254", "127.0.0.1",
                             "127.255.255.255", "169.254.169.254", "172.16.0.1", "172.31.255.255",
                             "192.0.0.8", "192.0.2.1", "192.88.99.1", "192.168.1.1", "198.18.0.1",
                             "198.19.255.255", "198.51.100.7", "203.0.113.9", "224.0.0.1", "239.255.255.250",
                             "240.0.0.1", "255.255.255.255"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        cr_expect_not(is_public(refused[i]), "%s passed", refused[i]);
    const char *allowed[] = {"1.1.1.1", "8.8.8.8", "100.63.255.255", "100.128.0.0", "172.15.255.255",
                             "172.32.0.1", "192.0.1.255", "192.0.3.1", "198.17.255.255", "198.20.0.1",
                             "203.0.114.1", "223.255.255.254"};
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
        cr_expect(is_public(allowed[i]), "%s refused", allowed[i]);
}

Test(ssrf, ipv6_outside_global_unicast_or_special_is_refused)
{
    const char *refused[] = {"::", "::1", "::ffff:127.0.0.1", "::ffff:10.1.2.3", "::127.0.0.1",
                             "::8.8.8.8", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::1",
                             "2002:7f00:1::", "2002:c0a8:101::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2",
                             "2001:1::1", "2001:db8::1", "3fff::1", "3fff:fff::1", "100::1", "fc00::1",
                             "fd12:3456::1", "fe80::1", "fec0::1", "ff02::1", "ff0e::1"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        cr_expect_not(is_public(refused[i]), "%s passed", refused[i]);
    const char *allowed[] = {"2001:4860:4860::8888", "2606:4700:4700::1111", "2a00:1450:4001::1",
                             "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1", "3fff:1000::1"};
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
        cr_expect(is_public(allowed[i]), "%s refused", allowed[i]);
}

/* Whatever they are, this host's own addresses are never deliverable. */
Test(ssrf, this_hosts_own_addresses_are_not_deliverable)
{
    struct ifaddrs *ifs;
    cr_assert_eq(getifaddrs(&ifs), 0);
    int seen = 0;
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next)
        if (i->ifa_addr && (i->ifa_addr->sa_family == AF_INET || i->ifa_addr->sa_family == AF_INET6)) {
            cr_expect_not(api_addr_deliverable(i->ifa_addr), "an address of interface %s", i->ifa_name);
            seen++;
        }
    freeifaddrs(ifs);
    cr_assert_gt(seen, 0);
}
