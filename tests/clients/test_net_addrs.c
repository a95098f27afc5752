/*
 * test_net_addrs.c — the clients' addresses (clients/net.h): one address and
 * its defaults, a cluster's list, what is refused, and net_open_any() going
 * on to the next node when one cannot be reached.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "clients/net.h"
#include "tests/lib/test_main.h"

static void one_address_and_its_defaults(void **state)
{
    (void)state;
    net_addrs_t a;
    assert_int_equal(net_parse_addrs("example.org:7000", &a), 0);
    assert_int_equal(a.n, 1);
    assert_string_equal(a.host[0], "example.org");
    assert_string_equal(a.port[0], "7000");
    assert_int_equal(net_parse_addrs(NULL, &a), 0);
    assert_int_equal(a.n, 1);
    assert_string_equal(a.host[0], NET_DEFAULT_HOST);
    assert_string_equal(a.port[0], NET_DEFAULT_PORT);
    assert_int_equal(net_parse_addrs(":7300", &a), 0);
    assert_string_equal(a.host[0], NET_DEFAULT_HOST);
    assert_string_equal(a.port[0], "7300");
}

static void a_clusters_list(void **state)
{
    (void)state;
    net_addrs_t a;
    assert_int_equal(net_parse_addrs("10.0.0.1:7233,[::1]:7234,node3", &a), 0);
    assert_int_equal(a.n, 3);
    assert_int_equal(a.cur, 0);
    assert_string_equal(a.host[0], "10.0.0.1");
    assert_string_equal(a.host[1], "::1");
    assert_string_equal(a.port[1], "7234");
    assert_string_equal(a.host[2], "node3");
    assert_string_equal(a.port[2], NET_DEFAULT_PORT);
}

static void what_is_refused(void **state)
{
    (void)state;
    net_addrs_t a;
    assert_int_equal(net_parse_addrs("a:1,,b:2", &a), -1);          /* an empty one */
    assert_int_equal(net_parse_addrs("a:1,", &a), -1);              /* a trailing comma */
    assert_int_equal(net_parse_addrs(",a:1", &a), -1);              /* a leading comma */
    assert_int_equal(net_parse_addrs("a:1,b:x", &a), -1);           /* a bad port */
    assert_int_equal(net_parse_addrs("1,2,3,4,5,6,7,8,9", &a), -1); /* more than 8 */
    assert_int_equal(net_parse_addrs("1,2,3,4,5,6,7,8", &a), 0);
    assert_int_equal(a.n, NET_MAX_ADDRS);
}

/* A port with nobody listening, and one with a listener (fd in *fd). */
static int closed_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(getsockname(s, (struct sockaddr *)&sa, &len), 0);
    close(s); /* bound, never listened: refused */
    return ntohs(sa.sin_port);
}

static int listening_port(int *fd)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(s, 4), 0);
    assert_int_equal(getsockname(s, (struct sockaddr *)&sa, &len), 0);
    *fd = s;
    return ntohs(sa.sin_port);
}

static void open_any_goes_on_to_the_next_node(void **state)
{
    (void)state;
    int lfd;
    int up = listening_port(&lfd), down = closed_port();
    char spec[64];
    snprintf(spec, sizeof spec, "127.0.0.1:%d,127.0.0.1:%d", down, up);
    net_addrs_t a;
    assert_int_equal(net_parse_addrs(spec, &a), 0);
    net_conn_t c;
    frame_init(&c.frame, NET_MAX_LINE);
    assert_int_equal(net_open_any(&c, &a), 0);
    assert_int_equal(a.cur, 1); /* the first could not be reached */
    net_close(&c);
    /* From the current one first: it still answers. */
    assert_int_equal(net_open_any(&c, &a), 0);
    assert_int_equal(a.cur, 1);
    net_close(&c);
    close(lfd);
    /* Nobody anywhere: -1. */
    assert_int_equal(net_open_any(&c, &a), -1);
    frame_free(&c.frame);
}

TEST_MAIN(cmocka_unit_test(one_address_and_its_defaults), cmocka_unit_test(a_clusters_list),
          cmocka_unit_test(what_is_refused), cmocka_unit_test(open_any_goes_on_to_the_next_node))
