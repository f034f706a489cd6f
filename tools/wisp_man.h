/*
 * wisp_man.c writes the configuration table into the manual page wisp(7)
 * for wisp-info --man; wisp_info.c prints the same table as text and
 * Markdown, the version, and checks an environment. Both name the types.
 */
#ifndef WISP_TOOLS_WISP_MAN_H
#define WISP_TOOLS_WISP_MAN_H

#include "core/config.h"

/* "integer", "size", ...: a variable's type as the documentation names it
 * (inline: both parts name types, and neither calls the other for it). */
static inline const char *wisp_info_type_name(enum wisp_config_type type)
{
    static const char *const names[] = {"integer", "size", "boolean", "string", "word"};
    return names[type];
}

/* The manual page wisp(7), in roff, on stdout. */
void wisp_info_print_man(void);

#endif
