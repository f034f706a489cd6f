/*
 * The info hints a served window reads at creation (docs/ghosts.md, "Info
 * hints"). A hint lets wisp leave out the lock windows, and a hint that is
 * wrong then costs the program its mutual exclusion; so a value that is not
 * understood counts as no hint at all, and WISP_VERBOSE=1 says so.
 */
#include "ghost/hints.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "core/log.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* MPI_Info_get, in both MPIs */

enum { EPOCH_FENCE = 1, EPOCH_PSCW = 2, EPOCH_LOCK = 4, EPOCH_LOCK_ALL = 8 };

/* Between the words of epochs_used: what Casper accepts, and white space. */
static const char separators[] = ",|; \t\n";

static int epoch_of(const char *word)
{
    static const struct {
        const char *word;
        int epoch;
    } words[] = {{"fence", EPOCH_FENCE},
                 {"pscw", EPOCH_PSCW},
                 {"lock", EPOCH_LOCK},
                 {"lockall", EPOCH_LOCK_ALL},
                 {"lock_all", EPOCH_LOCK_ALL}};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strcasecmp(word, words[i].word) == 0)
            return words[i].epoch;
    return 0;
}

/* The epochs that `value` names; 0 when it names none or has a word that is
 * not an epoch (then `bad` is that word, or "" for none). */
static int parse_epochs(char *value, const char **bad)
{
    int epochs = 0;
    *bad = "";
    for (char *save = NULL, *word = strtok_r(value, separators, &save); word;
         word = strtok_r(NULL, separators, &save)) {
        int e = epoch_of(word);
        if (!e) {
            *bad = word;
            return 0;
        }
        epochs |= e;
    }
    return epochs;
}

/* The value of `key` in `value` (MPI_MAX_INFO_VAL + 1 bytes); false when unset. */
static bool info_value(MPI_Info info, const char *key, char *value)
{
    int flag = 0;
    if (info == MPI_INFO_NULL ||
        PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag) != MPI_SUCCESS)
        return false;
    return flag;
}

/* A boolean hint: 1 true, 0 false, -1 unset or not understood (said when `say`). */
static int info_bool(MPI_Info info, const char *key, bool say)
{
    char value[MPI_MAX_INFO_VAL + 1];
    if (!info_value(info, key, value))
        return -1;
    if (strcasecmp(value, "true") == 0 || strcasecmp(value, "false") == 0)
        return strcasecmp(value, "true") == 0;
    if (say)
        wisp_log(1, "window info %s='%s' is not understood (true or false): ignored", key, value);
    return -1;
}

/* Whether the window's lock epochs must be served: false only when a hint
 * that wisp understands says that no MPI_Win_lock will come. */
static bool locks_used(MPI_Info info, bool say)
{
    if (info_bool(info, "no_locks", say) == 1)
        return false;
    char value[MPI_MAX_INFO_VAL + 1], copy[MPI_MAX_INFO_VAL + 1];
    if (!info_value(info, "epochs_used", value))
        return true;
    strcpy(copy, value);
    const char *bad;
    int epochs = parse_epochs(copy, &bad);
    if (!epochs) {
        if (say)
            wisp_log(1,
                     "window info epochs_used='%s' is not understood (%s%s%s): served as if "
                     "not given; expected words fence, pscw, lock, lockall separated by ',', "
                     "'|', ';' or spaces",
                     value, *bad ? "'" : "no epoch", bad, *bad ? "' is not one" : "");
        return true;
    }
    return epochs & EPOCH_LOCK;
}

struct wisp_ghost_hints wisp_ghost_read_hints(MPI_Info info, bool say)
{
    return (struct wisp_ghost_hints){
        .locks = locks_used(info, say),
        .no_local_load_store = info_bool(info, "no_local_load_store", say) == 1,
        .noncontig = info_bool(info, "alloc_shared_noncontig", say) == 1,
    };
}
