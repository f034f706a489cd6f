/*
 * The components of wisp, in the order core starts them (core/component.h).
 * The heap comes first, so that it spans the ghosts too; the ghosts next,
 * since carving them out changes the world and the topology everyone after
 * them sees; the idle-thread team, which the engine's copies use; the
 * point-to-point engine over the application's nodes; the node's collectives
 * above it, which move it while they wait; the progress thread
 * last, as it moves the engine too. And the wrapper layer
 * above them, as core and the components reach it (core/wrapper.h).
 */
#include "core/component.h"

#include <stddef.h>

#include "core/wrapper.h"

#include "coll/coll.h"
#include "ghost/ghost.h"
#include "p2p/start.h"
#include "progress/progress.h"
#include "shm/heap.h"
#include "team/team.h"
#include "wrap/tools.h"
#include "wrap/wrap.h"

const struct wisp_component wisp_components[] = {
    {"shm", wisp_shm_start, wisp_shm_heap_stop, NULL},
    {"ghost", wisp_ghost_start, wisp_ghost_release, NULL},
    {"team", wisp_team_start, wisp_team_stop, wisp_team_counter},
    {"p2p", wisp_p2p_init, wisp_p2p_fini, NULL},
    {"coll", wisp_coll_start, wisp_coll_stop, wisp_coll_counter_of},
    {"progress", wisp_progress_start, wisp_progress_stop, NULL},
    {NULL, NULL, NULL, NULL},
};

const struct wisp_core_wrapper wisp_core_wrapper = {
    .hooks_enable = wisp_wrap_hooks_enable,
    .begin = wisp_wrap_begin,
    .tools_report = wisp_wrap_tools_report,
    .impl = &wisp_impl,
};
