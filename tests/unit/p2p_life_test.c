/*
 * The moves of a request's life (src/p2p/request.h, one table) held against
 * what each state means (types.h): who holds the request (the user, the
 * engine), whether its operation runs, whether it is done. Every move keeps
 * what its event does not change; a move to FREE (a release) happens only
 * when nobody holds the request and nothing of it runs (the one exception:
 * the engine lets go of a freed send, which nobody completes after that);
 * every state but SENT can reach FREE; the done states are the ones
 * wisp_p2p_req_done says are done. No MPI job: the table is data.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "p2p/request.h"

#define L(s) WISP_P2P_LIFE_##s
enum { LIVES = L(SENT) + 1 };

/* What each state means, written here from types.h's diagram. */
static const struct meaning {
    bool user, engine, runs, done;
} means[LIVES] = {
    [L(FREE)] = {0},
    [L(INACTIVE)] = {.user = true},
    [L(ACTIVE)] = {.user = true, .runs = true},
    [L(ACTIVE_HELD)] = {.user = true, .engine = true, .runs = true},
    [L(FREED)] = {.runs = true},
    [L(FREED_HELD)] = {.engine = true, .runs = true},
    [L(DONE)] = {.user = true, .done = true},
    [L(DONE_HELD)] = {.user = true, .engine = true, .done = true},
    [L(FREED_DONE_HELD)] = {.engine = true, .done = true},
    [L(SENT)] = {.user = true, .done = true},
};
static const char *const names[LIVES] = {
#define X(life) #life,
    WISP_P2P_LIVES(X)
#undef X
};

static int failures;
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "p2p_life: " __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static int to(enum wisp_p2p_event e, int from)
{
    return (int)wisp_p2p_life_to[e][from] - 1; /* -1: no such move */
}

/* What event `e` may change of a state's meaning. */
static void check_move(enum wisp_p2p_event e, const char *event, int from, int next)
{
    const struct meaning *a = &means[from], *b = &means[next];
    if (next == L(FREE)) {
        bool exception = e == WISP_P2P_LET_GO && from == L(FREED_HELD);
        EXPECT(!(a->user && e != WISP_P2P_FREE && e != WISP_P2P_DISCARD),
               "%s from %s releases a request the user holds", event, names[from]);
        EXPECT(!(a->engine && e != WISP_P2P_LET_GO),
               "%s from %s releases a request the engine holds", event, names[from]);
        EXPECT(!a->runs || exception || e == WISP_P2P_COMPLETE || e == WISP_P2P_DISCARD,
               "%s from %s releases a request whose operation runs", event, names[from]);
        return;
    }
    EXPECT(from != L(FREE), "%s from FREE", event);
    switch (e) {
    case WISP_P2P_START:
        EXPECT(b->user == a->user && b->runs && !b->done, "start: %s -> %s", names[from],
               names[next]);
        break;
    case WISP_P2P_HOLD:
        EXPECT(b->engine && b->user == a->user && b->done == a->done, "hold: %s -> %s", names[from],
               names[next]);
        break;
    case WISP_P2P_COMPLETE:
        EXPECT(b->done && !b->runs && b->user == a->user && b->engine == a->engine,
               "complete: %s -> %s", names[from], names[next]);
        break;
    case WISP_P2P_LET_GO:
        EXPECT(!b->engine && b->user == a->user && b->done == a->done, "let go: %s -> %s",
               names[from], names[next]);
        break;
    case WISP_P2P_FREE:
        EXPECT((!b->user || from == L(SENT)) && b->engine == a->engine && b->done == a->done,
               "free: %s -> %s", names[from], names[next]);
        break;
    case WISP_P2P_REST:
        EXPECT(a->done && b->user && !b->runs && !b->done, "rest: %s -> %s", names[from],
               names[next]);
        break;
    default:
        EXPECT(false, "%s: %s -> %s is not a release", event, names[from], names[next]);
    }
}

int main(void)
{
    static const char *const events[WISP_P2P_EVENTS] = {
#define X(event, name) name,
        WISP_P2P_REQ_EVENTS(X)
#undef X
    };
    for (int from = 0; from < LIVES; from++) {
        EXPECT(means[from].done == wisp_p2p_req_done(&(struct wisp_p2p_req){.life = from}),
               "wisp_p2p_req_done(%s) is wrong", names[from]);
        EXPECT(means[from].engine == wisp_p2p_req_held(&(struct wisp_p2p_req){.life = from}),
               "wisp_p2p_req_held(%s) is wrong", names[from]);
        for (int e = 0; e < WISP_P2P_EVENTS; e++)
            if (to(e, from) >= 0)
                check_move(e, events[e], from, to(e, from));
    }
    /* The user's completion of an operation is reported, then freed: from
     * every state but SENT some sequence of moves releases the request. */
    bool reaches[LIVES] = {[L(FREE)] = true};
    for (int round = 0; round < LIVES; round++)
        for (int from = 0; from < LIVES; from++)
            for (int e = 0; e < WISP_P2P_EVENTS; e++)
                if (to(e, from) >= 0 && reaches[to(e, from)])
                    reaches[from] = true;
    for (int from = 0; from < LIVES; from++)
        EXPECT(reaches[from] == (from != L(SENT)), "%s %s be released", names[from],
               reaches[from] ? "can" : "cannot");
    /* Every state a request lives in (all but FREE) must be completed, or
     * freed, by some event, or it is a dead end. */
    for (int from = 1; from < LIVES; from++)
        EXPECT(to(WISP_P2P_FREE, from) >= 0 || to(WISP_P2P_COMPLETE, from) >= 0 ||
                   to(WISP_P2P_LET_GO, from) >= 0,
               "%s: neither free, complete nor let go moves it", names[from]);
    if (failures)
        return 1;
    printf("p2p_life: %d states, %d events: every move keeps the holders it should\n", LIVES,
           WISP_P2P_EVENTS);
    return 0;
}
