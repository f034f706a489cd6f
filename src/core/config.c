/*
 * Strict parsing of the WISP_* variables of core/gen/config.def. A value is
 * accepted only when all of it is understood; an unknown WISP_* name is an
 * error too, because a misspelt variable that is silently ignored costs a user
 * a day. Messages name the variable, the value and what would be accepted.
 */
#include "core/config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define WISP_RANGE(lo, hi)             (lo), (hi), NULL
#define WISP_RANGE_OR(lo, hi, aliases) (lo), (hi), (aliases)
#define WISP_NONE                      0, 0, NULL
#define WISP_WORDS(words)              0, 0, (words)

const struct wisp_config_var wisp_config_vars[] = {
#define WISP_CONFIG(name, type, def, limits, doc)                                                  \
    {"WISP_" #name, WISP_CFG_##type, def, limits, doc, offsetof(struct wisp_config, name)},
#include "core/gen/config.def"
#undef WISP_CONFIG
};
const size_t wisp_config_nvars = sizeof wisp_config_vars / sizeof wisp_config_vars[0];

struct wisp_config wisp_config;

enum { MAX_STRING = 64 };

static int parse_int(const char *s, int64_t *out)
{
    char *end;
    if (!isdigit((unsigned char)s[s[0] == '-' || s[0] == '+']))
        return -1;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* Bytes, with an optional binary unit: 512, 64k, 8M, 4G, 1T. */
static int parse_size(const char *s, int64_t *out)
{
    static const char units[] = "kmgt";
    char *end;
    if (!isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    if (*end) {
        const char *unit = strchr(units, tolower((unsigned char)*end));
        if (!unit || end[1])
            return -1;
        for (const char *u = units; u <= unit; u++) {
            if (v > (unsigned long long)INT64_MAX / 1024)
                return -1;
            v *= 1024;
        }
    }
    if (v > (unsigned long long)INT64_MAX)
        return -1;
    *out = (int64_t)v;
    return 0;
}

static int parse_bool(const char *s, int64_t *out)
{
    static const char *const yes[] = {"1", "on", "yes", "true"};
    static const char *const no[] = {"0", "off", "no", "false"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
            *out = !strcasecmp(s, yes[i]);
            return 0;
        }
    }
    return -1;
}

static int parse_string(const char *s, const char **out)
{
    size_t len = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
    if (len == 0 || len > MAX_STRING || s[len])
        return -1;
    *out = s;
    return 0;
}

/* The next entry of a '|'-separated list (words, or an integer's
 * "word=value" aliases) at *at, `len` bytes long; NULL after the last. */
static const char *list_next(const char **at, size_t *len)
{
    const char *w = *at;
    if (!w || !*w)
        return NULL;
    *len = strcspn(w, "|");
    *at = w + *len + (w[*len] == '|');
    return w;
}

const char *wisp_core_config_word(const struct wisp_config_var *var, int64_t index, size_t *len)
{
    const char *at = var->words, *w;
    while ((w = list_next(&at, len)) && index-- > 0)
        ;
    return w;
}

/* The index of `s` in the list `words`. */
static int parse_word(const char *s, const char *words, int64_t *out)
{
    size_t len = strlen(s), wlen;
    int64_t i = 0;
    for (const char *at = words, *w; (w = list_next(&at, &wlen)); i++) {
        if (len && wlen == len && !strncmp(w, s, len)) {
            *out = i;
            return 0;
        }
    }
    return -1;
}

/* An integer's words, "auto=0|off=1": the value `s` stands for. */
static int parse_alias(const char *s, const char *aliases, int64_t *out)
{
    size_t len = strlen(s), wlen;
    for (const char *at = aliases, *w; (w = list_next(&at, &wlen));) {
        size_t name = strcspn(w, "=");
        if (len && name == len && !strncmp(w, s, len)) {
            *out = strtoll(w + name + 1, NULL, 10); /* config.def's own text */
            return 0;
        }
    }
    return -1;
}

/* Parse `value` for `var` into the field it names; -1 if it is not valid. */
static int parse_value(const struct wisp_config_var *var, const char *value,
                       struct wisp_config *cfg)
{
    void *field = (char *)cfg + var->offset;
    int64_t v = 0;
    switch (var->type) {
    case WISP_CFG_STRING: {
        const char *s;
        if (parse_string(value, &s))
            return -1;
        char *copy = strdup(s);
        if (!copy)
            return -1;
        free((char *)*(const char **)field);
        *(const char **)field = copy;
        return 0;
    }
    case WISP_CFG_INT:
        if (parse_alias(value, var->words, &v) &&
            (parse_int(value, &v) || v < var->min || v > var->max))
            return -1;
        break;
    case WISP_CFG_SIZE:
        if (parse_size(value, &v) || v < var->min || v > var->max)
            return -1;
        break;
    case WISP_CFG_BOOL:
        if (parse_bool(value, &v))
            return -1;
        break;
    case WISP_CFG_WORD:
        if (parse_word(value, var->words, &v))
            return -1;
        break;
    }
    *(int64_t *)field = v;
    return 0;
}

/* 4294967296 -> "4G": sizes in messages as a user would write them. */
static const char *human(int64_t v, char *buf, size_t len)
{
    static const char units[] = "kMGT";
    int u = -1;
    while (u < 3 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%" PRId64, v);
    else
        snprintf(buf, len, "%" PRId64 "%c", v, units[u]);
    return buf;
}

void wisp_core_config_accepted(const struct wisp_config_var *var, char *buf, size_t len)
{
    char lo[32], hi[32];
    switch (var->type) {
    case WISP_CFG_INT: {
        int n = snprintf(buf, len, "an integer in %" PRId64 "..%" PRId64, var->min, var->max);
        size_t wlen;
        for (const char *at = var->words, *w;
             n >= 0 && (size_t)n < len && (w = list_next(&at, &wlen));)
            n += snprintf(buf + n, len - (size_t)n, ", %.*s", (int)strcspn(w, "="), w);
        break;
    }
    case WISP_CFG_SIZE:
        snprintf(buf, len, "a size in bytes with an optional unit k, M, G or T, from %s to %s",
                 human(var->min, lo, sizeof lo), human(var->max, hi, sizeof hi));
        break;
    case WISP_CFG_BOOL:
        snprintf(buf, len, "0/1, on/off, yes/no or true/false");
        break;
    case WISP_CFG_STRING:
        snprintf(buf, len, "1 to %d letters, digits, '.', '_' or '-'", MAX_STRING);
        break;
    case WISP_CFG_WORD: {
        int n = snprintf(buf, len, "one of ");
        size_t wlen;
        for (const char *at = var->words, *w;
             n >= 0 && (size_t)n < len && (w = list_next(&at, &wlen));)
            n += snprintf(buf + n, len - (size_t)n, "%s%.*s", w == var->words ? "" : ", ",
                          (int)wlen, w);
        break;
    }
    }
}

/* The build's own settings (CMake's cache variables that a user may set,
 * and make's WISP_JEMALLOC_SOURCE): not run-time variables, but a user who
 * exports one for the build keeps it in every later job's environment, so
 * the run-time check passes over them instead of stopping the job. Every
 * user-visible WISP_* entry of a build's CMakeCache.txt must be here
 * (tests/build_knobs.sh). */
static const char *const build_knobs[] = {
    "WISP_APT_GET",
    "WISP_BOOST_CONTEXT_ARCHIVE",
    "WISP_CCACHE",
    "WISP_CCACHE_PROGRAM",
    "WISP_CONFORMANCE_DIR",
    "WISP_EASYBUILD_EB",
    "WISP_EASYBUILD_MPI_BIN",
    "WISP_GFORTRAN",
    "WISP_GNU_MAKE",
    "WISP_IMPI_ROOT",
    "WISP_JEMALLOC_SOURCE",
    "WISP_LIBOMP",
    "WISP_MPI",
    "WISP_MPICH_BUILD",
    "WISP_MPI_FORTRAN_COMPILER",
    "WISP_OBJCOPY",
    "WISP_SANITIZE",
    "WISP_TESTS",
    "WISP_TEST_TIMEOUT",
    "WISP_TOOLS_PYTHON",
};

static int is_build_knob(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof build_knobs / sizeof build_knobs[0]; i++)
        if (strlen(build_knobs[i]) == len && !strncmp(build_knobs[i], name, len))
            return 1;
    return 0;
}

static const struct wisp_config_var *find_var(const char *name, size_t len)
{
    for (size_t i = 0; i < wisp_config_nvars; i++)
        if (strlen(wisp_config_vars[i].name) == len &&
            !strncmp(wisp_config_vars[i].name, name, len))
            return &wisp_config_vars[i];
    return NULL;
}

const struct wisp_config_var *wisp_core_config_var(const char *name)
{
    return find_var(name, strlen(name));
}

/* Levenshtein distance, capped: enough to suggest the variable a typo meant. */
static size_t edit_distance(const char *a, size_t alen, const char *b)
{
    size_t blen = strlen(b), row[64];
    if (alen >= 63 || blen >= 63)
        return SIZE_MAX;
    for (size_t j = 0; j <= blen; j++)
        row[j] = j;
    for (size_t i = 1; i <= alen; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= blen; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[blen];
}

static void complain_unknown(const char *entry, size_t namelen, wisp_config_complain_fn *complain,
                             void *ctx)
{
    const char *best = NULL;
    size_t best_distance = 4; /* suggest only close matches */
    for (size_t i = 0; i < wisp_config_nvars; i++) {
        size_t d = edit_distance(entry, namelen, wisp_config_vars[i].name);
        if (d < best_distance) {
            best_distance = d;
            best = wisp_config_vars[i].name;
        }
    }
    char line[512];
    snprintf(line, sizeof line,
             "%.*s is not a wisp variable%s%s%s; `wisprun --help-env` lists them", (int)namelen,
             entry, best ? " (did you mean " : "", best ? best : "", best ? "?)" : "");
    complain(ctx, line);
}

void wisp_core_config_free(struct wisp_config *cfg)
{
    for (size_t i = 0; i < wisp_config_nvars; i++) {
        if (wisp_config_vars[i].type == WISP_CFG_STRING) {
            const char **field = (const char **)((char *)cfg + wisp_config_vars[i].offset);
            free((char *)*field);
            *field = NULL;
        }
    }
}

/* wisp_core_config_parse, over the entries of `env` that start with `prefix`. */
static int parse_env(struct wisp_config *cfg, char *const *env, const char *prefix,
                     wisp_config_complain_fn *complain, void *ctx)
{
    int problems = 0;
    memset(cfg, 0, sizeof *cfg); /* callers pass a fresh or freed struct */
    for (size_t i = 0; i < wisp_config_nvars; i++) {
        const struct wisp_config_var *var = &wisp_config_vars[i];
        if (var->def && parse_value(var, var->def, cfg)) {
            complain(ctx, "internal error: a default in config.def does not parse");
            problems++;
        }
    }
    for (; env && *env; env++) {
        const char *entry = *env;
        if (strncmp(entry, prefix, strlen(prefix)))
            continue;
        const char *eq = strchr(entry, '=');
        size_t namelen = eq ? (size_t)(eq - entry) : strlen(entry);
        const struct wisp_config_var *var = find_var(entry, namelen);
        if (!var && is_build_knob(entry, namelen))
            continue;
        if (!var) {
            complain_unknown(entry, namelen, complain, ctx);
            problems++;
        } else if (parse_value(var, eq ? eq + 1 : "", cfg)) {
            char accepted[160], line[512];
            wisp_core_config_accepted(var, accepted, sizeof accepted);
            snprintf(line, sizeof line, "%s='%.200s' is not valid: expected %s", var->name,
                     eq ? eq + 1 : "", accepted);
            complain(ctx, line);
            problems++;
        }
    }
    return problems;
}

/* Values valid alone that contradict each other, checked here once for
 * every reader of them (the ghosts' WISP_ASYNC=auto, WISP_PROGRESS=auto). */
static int check_together(const struct wisp_config *cfg, wisp_config_complain_fn *complain,
                          void *ctx)
{
    if (cfg->ASYNC_ON_BELOW > cfg->ASYNC_OFF_ABOVE) {
        char line[256];
        snprintf(line, sizeof line,
                 "WISP_ASYNC_ON_BELOW=%d is above WISP_ASYNC_OFF_ABOVE=%d: a process would be "
                 "computing and communicating at once; give ON_BELOW <= OFF_ABOVE",
                 (int)cfg->ASYNC_ON_BELOW, (int)cfg->ASYNC_OFF_ABOVE);
        complain(ctx, line);
        return 1;
    }
    return 0;
}

int wisp_core_config_parse(struct wisp_config *cfg, char *const *env,
                           wisp_config_complain_fn *complain, void *ctx)
{
    int problems = parse_env(cfg, env, "WISP_", complain, ctx);
    return problems + check_together(cfg, complain, ctx);
}

int wisp_core_config_parse_some(struct wisp_config *cfg, const char *prefix,
                                wisp_config_complain_fn *complain, void *ctx)
{
    extern char **environ;
    return parse_env(cfg, environ, prefix, complain, ctx);
}
