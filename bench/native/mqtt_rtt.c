/* The native anchor of bench/bench_mqtt.py (issue 21): an MQTT round trip with libmosquitto.
 *
 * Two libmosquitto clients in this process, each with its own network thread
 * (mosquitto_loop_start), as the Python anchor has two paho clients in two processes: "ping"
 * publishes on bench/nping, "echo" (subscribed to it) publishes a reply on bench/npong, to
 * which "ping" is subscribed. MQTT 5, QoS 1 both ways, TCP_NODELAY; the reply is retained and
 * PONG_BYTES long, as the table's public state is (retained, QoS 1); the ping is PING_BYTES
 * long, as a tablet's action is. One round trip is timed from just before
 * mosquitto_publish_v5 of the ping to the ping client's on_message for its reply
 * (CLOCK_MONOTONIC), the same two hops through the broker as action -> controller -> state.
 *
 *   mqtt_rtt HOST PORT COUNT PING_BYTES PONG_BYTES
 *
 * Logins from the environment (anonymous when unset): MQTT_RTT_PING_USER/_PASS and
 * MQTT_RTT_ECHO_USER/_PASS (the broker may make each client's id its login). Prints "ready"
 * once both clients are subscribed; then, COUNT > 0: COUNT round trips back to back;
 * COUNT == 0: one round trip per line read on stdin, until end of input (the bench
 * interleaves them with its other measurements). Each round trip prints "rtt_us <micros>".
 * Exit 1 on a connection failure or an echo that did not come back within 10 s.
 *
 * Build: gcc -O2 mqtt_rtt.c -o mqtt_rtt -lmosquitto -lpthread (libmosquitto-dev).
 */
#include <errno.h>
#include <mosquitto.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int subscribed = 0;        /* clients whose SUBACK came */
static int failed = 0;            /* a connection was refused or lost */
static char want[32];             /* the key of the ping in flight */
static int got = 0;               /* its reply came */
static struct timespec got_at;    /* when */
static char *pong_buf;
static int pong_bytes;

struct role {
    const char *name;
    const char *sub;
};

static void on_connect(struct mosquitto *m, void *obj, int rc, int flags, const mosquitto_property *p) {
    (void)flags; (void)p;
    struct role *r = obj;
    if (rc) {
        fprintf(stderr, "mqtt_rtt: %s: connect refused: %s\n", r->name, mosquitto_reason_string(rc));
        pthread_mutex_lock(&mu); failed = 1; pthread_cond_broadcast(&cv); pthread_mutex_unlock(&mu);
        return;
    }
    mosquitto_subscribe_v5(m, NULL, r->sub, 1, 0, NULL);
}

static void on_subscribe(struct mosquitto *m, void *obj, int mid, int n, const int *granted,
                         const mosquitto_property *p) {
    (void)m; (void)mid; (void)p;
    struct role *r = obj;
    pthread_mutex_lock(&mu);
    if (n < 1 || granted[0] > 2) {
        fprintf(stderr, "mqtt_rtt: %s: subscription to %s refused\n", r->name, r->sub);
        failed = 1;
    } else {
        subscribed++;
    }
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void on_disconnect(struct mosquitto *m, void *obj, int rc, const mosquitto_property *p) {
    (void)m; (void)p;
    struct role *r = obj;
    if (rc) {
        fprintf(stderr, "mqtt_rtt: %s: disconnected: %s\n", r->name, mosquitto_strerror(rc));
        pthread_mutex_lock(&mu); failed = 1; pthread_cond_broadcast(&cv); pthread_mutex_unlock(&mu);
    }
}

/* the key is the payload up to its first '|' */
static size_t key_len(const void *payload, int len) {
    const char *bar = memchr(payload, '|', (size_t)len);
    return bar ? (size_t)(bar - (const char *)payload) : (size_t)len;
}

static void on_ping_message(struct mosquitto *m, void *obj, const struct mosquitto_message *msg,
                            const mosquitto_property *p) {
    (void)m; (void)obj; (void)p;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    size_t k = key_len(msg->payload, msg->payloadlen);
    pthread_mutex_lock(&mu);
    if (!got && k == strlen(want) && memcmp(msg->payload, want, k) == 0) {
        got = 1;
        got_at = now;
        pthread_cond_broadcast(&cv);
    }
    pthread_mutex_unlock(&mu);
}

static void on_echo_message(struct mosquitto *m, void *obj, const struct mosquitto_message *msg,
                            const mosquitto_property *p) {
    (void)obj; (void)p;
    if (msg->payloadlen < 1)
        return; /* the retained reply cleared at the start, or an empty one */
    size_t k = key_len(msg->payload, msg->payloadlen);
    if (k >= sizeof want)
        return;
    /* this thread alone writes pong_buf */
    memcpy(pong_buf, msg->payload, k);
    if ((int)k < pong_bytes)
        pong_buf[k] = '|';
    mosquitto_publish_v5(m, NULL, "bench/npong", pong_bytes, pong_buf, 1, true, NULL);
}

static struct mosquitto *client(struct role *r, const char *user_env, const char *pass_env,
                                const char *host, int port) {
    struct mosquitto *m = mosquitto_new(getenv(user_env), true, r);
    if (!m) {
        fprintf(stderr, "mqtt_rtt: mosquitto_new: %s\n", strerror(errno));
        exit(1);
    }
    mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
    mosquitto_int_option(m, MOSQ_OPT_TCP_NODELAY, 1);
    if (getenv(user_env))
        mosquitto_username_pw_set(m, getenv(user_env), getenv(pass_env));
    mosquitto_connect_v5_callback_set(m, on_connect);
    mosquitto_subscribe_v5_callback_set(m, on_subscribe);
    mosquitto_disconnect_v5_callback_set(m, on_disconnect);
    int rc = mosquitto_connect_bind_v5(m, host, port, 30, NULL, NULL);
    if (rc) {
        fprintf(stderr, "mqtt_rtt: %s: connect to %s:%d: %s\n", r->name, host, port, mosquitto_strerror(rc));
        exit(1);
    }
    mosquitto_loop_start(m);
    return m;
}

static int wait_until(int (*done)(void), int seconds) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += seconds;
    int ok = 1;
    pthread_mutex_lock(&mu);
    while (!done() && !failed)
        if (pthread_cond_timedwait(&cv, &mu, &until) == ETIMEDOUT) {
            ok = done();
            break;
        }
    if (failed)
        ok = 0;
    pthread_mutex_unlock(&mu);
    return ok;
}

static int both_subscribed(void) { return subscribed >= 2; }
static int reply_came(void) { return got; }

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: mqtt_rtt HOST PORT COUNT PING_BYTES PONG_BYTES\n");
        return 2;
    }
    const char *host = argv[1];
    int port = atoi(argv[2]), count = atoi(argv[3]), ping_bytes = atoi(argv[4]);
    pong_bytes = atoi(argv[5]);
    if (ping_bytes < 16) ping_bytes = 16;
    if (pong_bytes < 16) pong_bytes = 16;
    char *ping_buf = malloc((size_t)ping_bytes);
    pong_buf = malloc((size_t)pong_bytes);
    memset(ping_buf, 'x', (size_t)ping_bytes);
    memset(pong_buf, 'x', (size_t)pong_bytes);

    mosquitto_lib_init();
    static struct role echo_role = {"echo", "bench/nping"}, ping_role = {"ping", "bench/npong"};
    struct mosquitto *echo = client(&echo_role, "MQTT_RTT_ECHO_USER", "MQTT_RTT_ECHO_PASS", host, port);
    mosquitto_message_v5_callback_set(echo, on_echo_message);
    struct mosquitto *ping = client(&ping_role, "MQTT_RTT_PING_USER", "MQTT_RTT_PING_PASS", host, port);
    mosquitto_message_v5_callback_set(ping, on_ping_message);
    if (!wait_until(both_subscribed, 20)) {
        fprintf(stderr, "mqtt_rtt: the clients did not connect and subscribe within 20 s\n");
        return 1;
    }
    printf("ready\n");
    fflush(stdout);

    char line[64];
    for (int n = 0; count == 0 || n < count; n++) {
        if (count == 0 && !fgets(line, sizeof line, stdin))
            break;
        pthread_mutex_lock(&mu);
        snprintf(want, sizeof want, "n%d", n);
        got = 0;
        pthread_mutex_unlock(&mu);
        size_t k = strlen(want);
        memcpy(ping_buf, want, k);
        ping_buf[k] = '|';
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int rc = mosquitto_publish_v5(ping, NULL, "bench/nping", ping_bytes, ping_buf, 1, false, NULL);
        if (rc) {
            fprintf(stderr, "mqtt_rtt: publish: %s\n", mosquitto_strerror(rc));
            return 1;
        }
        if (!wait_until(reply_came, 10)) {
            fprintf(stderr, "mqtt_rtt: the echo of %s did not come back within 10 s\n", want);
            return 1;
        }
        double us = (double)(got_at.tv_sec - t0.tv_sec) * 1e6 + (double)(got_at.tv_nsec - t0.tv_nsec) / 1e3;
        printf("rtt_us %.1f\n", us);
        fflush(stdout);
    }
    mosquitto_disconnect(ping);
    mosquitto_disconnect(echo);
    mosquitto_loop_stop(ping, false);
    mosquitto_loop_stop(echo, false);
    mosquitto_destroy(ping);
    mosquitto_destroy(echo);
    mosquitto_lib_cleanup();
    return 0;
}
