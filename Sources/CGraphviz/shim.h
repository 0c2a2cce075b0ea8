// The parts of libgvc and libcgraph that Lifeline calls, plus wrappers for the ones Swift 6
// cannot call directly. Graphviz is not thread-safe: callers serialise every call.
#ifndef LIFELINE_CGRAPHVIZ_SHIM_H
#define LIFELINE_CGRAPHVIZ_SHIM_H

#include <gvc.h>
#include <cgraph.h>

/// Sets a graph attribute, declaring it with an empty default when the graph lacks it.
///
/// `agsafeset` takes its strings as mutable `char *`, which Swift cannot pass string
/// literals to; Graphviz only reads them.
static inline void lifeline_set_graph_attribute(Agraph_t *graph, const char *name,
                                                const char *value) {
    agsafeset(graph, (char *)name, (char *)value, (char *)"");
}

/// The value of a graph attribute, or NULL when the graph does not declare it.
///
/// `agget` takes its attribute name as a mutable `char *`; Graphviz only reads it.
static inline const char *lifeline_graph_attribute(Agraph_t *graph, const char *name) {
    return agget(graph, (char *)name);
}

#endif
