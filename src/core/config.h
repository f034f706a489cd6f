/*
 * The configuration: one struct whose fields come from the tables of core
 * and of each component (src/<folder>/config.def, gathered into
 * core/gen/config.def), filled from the environment by a strict parser
 * that rejects anything it does not fully understand, including unknown
 * WISP_* names.
 */
#ifndef WISP_CORE_CONFIG_H
#define WISP_CORE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "core/gen/config_words.h" /* the WORD variables' enums */

#pragma GCC visibility push(hidden)

enum wisp_config_type {
    WISP_CFG_INT,
    WISP_CFG_SIZE,
    WISP_CFG_BOOL,
    WISP_CFG_STRING,
    WISP_CFG_WORD
};

#define WISP_CFG_CTYPE_INT    int64_t
#define WISP_CFG_CTYPE_SIZE   int64_t
#define WISP_CFG_CTYPE_BOOL   int64_t
#define WISP_CFG_CTYPE_STRING const char *
#define WISP_CFG_CTYPE_WORD   int64_t /* index of the word in the list */

struct wisp_config {
#define WISP_CONFIG(name, type, def, limits, doc) WISP_CFG_CTYPE_##type name;
#include "core/gen/config.def"
#undef WISP_CONFIG
};

/* One row of the table, as the parser and the documentation see it. */
struct wisp_config_var {
    const char *name; /* WISP_... */
    enum wisp_config_type type;
    const char *def;
    int64_t min, max;  /* INT, SIZE */
    const char *words; /* WORD: the accepted words, separated by '|'; INT: words that
                          stand for a value, "auto=0|off=1" */
    const char *doc;
    size_t offset;
};

extern const struct wisp_config_var wisp_config_vars[];
extern const size_t wisp_config_nvars;

/* Called once per problem with one complete line (no newline). */
typedef void wisp_config_complain_fn(void *ctx, const char *line);

/* Fill `cfg` from `env` (a NULL-terminated environ array). Returns the number
 * of problems found; each was passed to `complain`. `cfg` holds defaults for
 * the variables that had a problem. Strings are copies owned by `cfg`. */
int wisp_core_config_parse(struct wisp_config *cfg, char *const *env,
                           wisp_config_complain_fn *complain, void *ctx);

/* The same, before MPI_Init reads them all: from the process's environment,
 * only the entries that start with `prefix` ("WISP_ULT_", "WISP_GHOSTS=");
 * the other variables keep their defaults. */
int wisp_core_config_parse_some(struct wisp_config *cfg, const char *prefix,
                                wisp_config_complain_fn *complain, void *ctx);

/* Release the strings that wisp_core_config_parse copied into `cfg`. */
void wisp_core_config_free(struct wisp_config *cfg);

/* Describe the accepted values of `var` in words, e.g. "an integer in 0..3". */
void wisp_core_config_accepted(const struct wisp_config_var *var, char *buf, size_t len);

/* The row of the variable `name` ("WISP_ASYNC"); NULL when there is none. */
const struct wisp_config_var *wisp_core_config_var(const char *name);

/* Word `index` of a WORD variable's row, `*len` bytes long (not ended by a
 * NUL: print it with "%.*s"); NULL past the last. */
const char *wisp_core_config_word(const struct wisp_config_var *var, int64_t index, size_t *len);

/* The live configuration of this process, valid after MPI_Init. */
extern struct wisp_config wisp_config;

#pragma GCC visibility pop

#endif
