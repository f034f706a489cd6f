/*
 * The configuration parser: defaults, every accepted spelling, and for every
 * kind of bad input exactly one complaint that names the variable, the value
 * and what is accepted. No MPI needed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/config.h"

struct complaints {
    int count;
    char last[512];
};

static void remember(void *ctx, const char *line)
{
    struct complaints *c = ctx;
    c->count++;
    snprintf(c->last, sizeof c->last, "%s", line);
}

/* Parse a one-variable environment; returns the complaints. */
static struct complaints parse1(const char *entry, struct wisp_config *cfg)
{
    char *env[] = {"PATH=/usr/bin", "WISPY=not ours", (char *)entry, NULL};
    struct complaints c = {0};
    int n = wisp_core_config_parse(cfg, env, remember, &c);
    CHECK(n == c.count);
    return c;
}

static void expect_value(const char *entry, size_t offset, int64_t want)
{
    struct wisp_config cfg;
    struct complaints c = parse1(entry, &cfg);
    if (c.count)
        fprintf(stderr, "unexpected complaint for %s: %s\n", entry, c.last);
    CHECK(c.count == 0);
    CHECK(*(int64_t *)((char *)&cfg + offset) == want);
    wisp_core_config_free(&cfg);
}

static void expect_rejected(const char *entry, const char *must_contain)
{
    struct wisp_config cfg;
    struct complaints c = parse1(entry, &cfg);
    CHECK(c.count == 1);
    if (!strstr(c.last, must_contain)) {
        fprintf(stderr, "complaint for %s lacks '%s': %s\n", entry, must_contain, c.last);
        failures++;
    }
    wisp_core_config_free(&cfg);
}

static void test_defaults(void)
{
    struct wisp_config cfg;
    struct complaints c = {0};
    char *env[] = {NULL};
    CHECK(wisp_core_config_parse(&cfg, env, remember, &c) == 0);
    CHECK(cfg.VNODE_SIZE == 0 && cfg.VERBOSE == 0 && cfg.STATS == 0 && cfg.JOB == NULL);
    CHECK(cfg.SHM == 1 && cfg.HEAP_SIZE == (int64_t)4 << 30);
    CHECK(cfg.GHOST_WINDOWS == 0);
    wisp_core_config_free(&cfg);
}

static void test_accepted(void)
{
#define AT(field) offsetof(struct wisp_config, field)
    expect_value("WISP_VNODE_SIZE=1", AT(VNODE_SIZE), 1);
    expect_value("WISP_VNODE_SIZE=4", AT(VNODE_SIZE), 4);
    expect_value("WISP_VNODE_SIZE=1048576", AT(VNODE_SIZE), 1048576);
    expect_value("WISP_VERBOSE=3", AT(VERBOSE), 3);
    expect_value("WISP_VERBOSE=0", AT(VERBOSE), 0);
    const char *yes[] = {"1", "on", "ON", "yes", "true", "True"};
    const char *no[] = {"0", "off", "no", "false", "FALSE", "Off"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        char entry[64];
        snprintf(entry, sizeof entry, "WISP_STATS=%s", yes[i]);
        expect_value(entry, AT(STATS), 1);
        snprintf(entry, sizeof entry, "WISP_STATS=%s", no[i]);
        expect_value(entry, AT(STATS), 0);
    }
    expect_value("WISP_HEAP_SIZE=1048576", AT(HEAP_SIZE), 1 << 20);
    expect_value("WISP_HEAP_SIZE=64M", AT(HEAP_SIZE), 64 << 20);
    expect_value("WISP_HEAP_SIZE=8G", AT(HEAP_SIZE), (int64_t)8 << 30);
    expect_value("WISP_HEAP_SIZE=8g", AT(HEAP_SIZE), (int64_t)8 << 30);
    expect_value("WISP_HEAP_SIZE=2048k", AT(HEAP_SIZE), 2 << 20);
    expect_value("WISP_HEAP_SIZE=1T", AT(HEAP_SIZE), (int64_t)1 << 40);
    expect_value("WISP_SHM=off", AT(SHM), 0);
    expect_value("WISP_SHM=on", AT(SHM), 1);
    expect_value("WISP_GHOST_WINDOWS=auto", AT(GHOST_WINDOWS), 0);
    expect_value("WISP_GHOST_WINDOWS=on", AT(GHOST_WINDOWS), 1);
    expect_value("WISP_GHOST_WINDOWS=off", AT(GHOST_WINDOWS), 2);
    expect_value("WISP_DT_THREADS=auto", AT(DT_THREADS), 0); /* an integer's words */
    expect_value("WISP_DT_THREADS=off", AT(DT_THREADS), 1);
    expect_value("WISP_DT_THREADS=16", AT(DT_THREADS), 16);
#undef AT
    struct wisp_config cfg;
    CHECK(parse1("WISP_JOB=host-12_3.x", &cfg).count == 0);
    CHECK(cfg.JOB && !strcmp(cfg.JOB, "host-12_3.x"));
    wisp_core_config_free(&cfg);
    CHECK(cfg.JOB == NULL);
}

static void test_rejected(void)
{
    const char *vnode = "expected an integer in 1..1048576";
    expect_rejected("WISP_VNODE_SIZE=abc", "WISP_VNODE_SIZE='abc' is not valid");
    expect_rejected("WISP_VNODE_SIZE=abc", vnode);
    expect_rejected("WISP_VNODE_SIZE=0", "WISP_VNODE_SIZE='0'");
    expect_rejected("WISP_VNODE_SIZE=-3", "WISP_VNODE_SIZE='-3'");
    expect_rejected("WISP_VNODE_SIZE=4x", vnode);
    expect_rejected("WISP_VNODE_SIZE= 4", vnode);
    expect_rejected("WISP_VNODE_SIZE=", "WISP_VNODE_SIZE=''");
    expect_rejected("WISP_VNODE_SIZE=1048577", vnode);
    expect_rejected("WISP_VNODE_SIZE=99999999999999999999999", vnode);
    expect_rejected("WISP_VERBOSE=4", "expected an integer in 0..3");
    expect_rejected("WISP_VERBOSE=-1", "WISP_VERBOSE='-1'");
    expect_rejected("WISP_STATS=maybe", "WISP_STATS='maybe' is not valid: expected 0/1, on/off");
    expect_rejected("WISP_STATS=2", "WISP_STATS='2'");
    const char *threads = "expected an integer in 1..1024, auto, off";
    expect_rejected("WISP_DT_THREADS=0", threads); /* a word's value is not a number's */
    expect_rejected("WISP_DT_THREADS=autox", threads);
    expect_rejected("WISP_DT_THREADS=of", threads);
    expect_rejected("WISP_DT_THREADS=", threads);
    const char *windows = "WISP_GHOST_WINDOWS='%s' is not valid: expected one of auto, on, off";
    const char *bad_words[] = {"", "of", "offf", "ON", "auto|on", "|"};
    for (size_t i = 0; i < sizeof bad_words / sizeof bad_words[0]; i++) {
        char entry[64], want[128];
        snprintf(entry, sizeof entry, "WISP_GHOST_WINDOWS=%s", bad_words[i]);
        snprintf(want, sizeof want, windows, bad_words[i]);
        expect_rejected(entry, want);
    }
    const char *heap = "expected a size in bytes with an optional unit k, M, G or T, from 1M to 1T";
    expect_rejected("WISP_HEAP_SIZE=512k", heap);
    expect_rejected("WISP_HEAP_SIZE=2T", heap);
    expect_rejected("WISP_HEAP_SIZE=4x", "WISP_HEAP_SIZE='4x' is not valid");
    expect_rejected("WISP_HEAP_SIZE=4GB", heap);
    expect_rejected("WISP_HEAP_SIZE=-1", heap);
    expect_rejected("WISP_HEAP_SIZE=G", heap);
    expect_rejected("WISP_HEAP_SIZE=99999999999T", heap);
    expect_rejected("WISP_SHM=auto", "WISP_SHM='auto'");
    expect_rejected("WISP_JOB=a/b", "WISP_JOB='a/b'");
    expect_rejected("WISP_JOB=", "WISP_JOB=''");
}

static void test_unknown_names(void)
{
    expect_rejected("WISP_VNODE_SIZ=2",
                    "WISP_VNODE_SIZ is not a wisp variable (did you mean WISP_VNODE_SIZE?)");
    expect_rejected("WISP_VERBSE=1", "did you mean WISP_VERBOSE?");
    expect_rejected("WISP_COMPLETELY_DIFFERENT=1",
                    "WISP_COMPLETELY_DIFFERENT is not a wisp variable;");
    expect_rejected("WISP_=1", "WISP_ is not a wisp variable");
    expect_rejected("WISP_STATS", "WISP_STATS='' is not valid"); /* an entry without '=' */
}

static void test_several_problems_and_defaults_kept(void)
{
    char *env[] = {"WISP_VERBOSE=2", "WISP_VNODE_SIZE=x", "WISP_TYPO=1", NULL};
    struct wisp_config cfg;
    struct complaints c = {0};
    CHECK(wisp_core_config_parse(&cfg, env, remember, &c) == 2);
    CHECK(cfg.VERBOSE == 2 && cfg.VNODE_SIZE == 0);
    wisp_core_config_free(&cfg);
}

static void test_table(void)
{
    CHECK(wisp_config_nvars >= 4);
    for (size_t i = 0; i < wisp_config_nvars; i++) {
        CHECK(!strncmp(wisp_config_vars[i].name, "WISP_", 5));
        CHECK(strlen(wisp_config_vars[i].doc) > 20);
    }
}

int main(void)
{
    test_defaults();
    test_accepted();
    test_rejected();
    test_unknown_names();
    test_several_problems_and_defaults_kept();
    test_table();
    printf("config_test: %s (%d failures)\n", failures ? "FAILED" : "ok", failures);
    return failures != 0;
}
