/*
 * What the parts of wisp-info share: wisp_info.c prints the configuration
 * table (text, Markdown), the version and checks an environment;
 * wisp_man.c writes the table into the manual page wisp(7).
 */
#ifndef WISP_TOOLS_WISP_INFO_H
#define WISP_TOOLS_WISP_INFO_H

#include "core/config.h"

/* "integer", "size", ...: a variable's type as the documentation names it. */
const char *wisp_info_type_name(enum wisp_config_type type);

/* The manual page wisp(7), in roff, on stdout. */
void wisp_info_print_man(void);

#endif
