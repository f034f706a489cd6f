/* Queries of the components' table (component.h). */
#include "core/component.h"

#include <string.h>

uint64_t wisp_core_component_counter(const char *component, const char *counter)
{
    for (const struct wisp_component *c = wisp_components; c->name; c++)
        if (!strcmp(c->name, component))
            return c->counter ? c->counter(counter) : 0;
    return 0;
}
