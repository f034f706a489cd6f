/*
 * Boost.Context's context switch (libboost-context-dev), through its C
 * ABI: make_fcontext prepares a stack to start `fn`, jump_fcontext saves
 * the running context and resumes another, handing it `data` and the
 * context it left. Boost declares them in a C++ header only; these are the
 * same declarations in C. The build links Boost's assembly objects into
 * libwisp under these wisp_ult_ names (cmake/WispFcontext.cmake), so that
 * neither libwisp nor its users need Boost at run time.
 */
#ifndef WISP_ULT_FCONTEXT_H
#define WISP_ULT_FCONTEXT_H

#include <stddef.h>

typedef void *wisp_fcontext;

struct wisp_transfer {
    wisp_fcontext ctx; /* the context that jumped here */
    void *data;
};

#pragma GCC visibility push(hidden)
struct wisp_transfer wisp_ult_jump_fcontext(wisp_fcontext to, void *data);
wisp_fcontext wisp_ult_make_fcontext(void *stack_top, size_t size,
                                     void (*fn)(struct wisp_transfer));
#pragma GCC visibility pop

#endif
