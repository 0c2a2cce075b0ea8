// The parts of libgvc and libcgraph that Lifeline calls, plus wrappers for the ones Swift 6
// cannot call directly. Graphviz is not thread-safe: callers serialise every call.
#ifndef LIFELINE_CGRAPHVIZ_SHIM_H
#define LIFELINE_CGRAPHVIZ_SHIM_H

#include <gvc.h>
#include <cgraph.h>
#include <string.h>
#include <strings.h>

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

/// One colour substitution: attribute values equal to `from` (ignoring case) become `to`.
typedef struct {
    const char *from;
    const char *to;
} lifeline_color_substitution;

/// The substitute for `value`, or NULL when none applies.
static inline const char *lifeline_substitute_color(const char *value, const lifeline_color_substitution *substitutions,
                                                    int count) {
    if (value == NULL) return NULL;
    for (int index = 0; index < count; index++) {
        if (strcasecmp(value, substitutions[index].from) == 0) return substitutions[index].to;
    }
    return NULL;
}

/// Substitutes one attribute's value on one object.
static inline void lifeline_substitute_attribute(void *object, Agsym_t *symbol,
                                                 const lifeline_color_substitution *substitutions, int count) {
    const char *to = lifeline_substitute_color(agxget(object, symbol), substitutions, count);
    if (to != NULL) agxset(object, symbol, (char *)to);
}

/// Substitutes one graph attribute on `graph` and every subgraph under it.
static inline void lifeline_substitute_graph_attribute(Agraph_t *graph, Agsym_t *symbol,
                                                       const lifeline_color_substitution *substitutions, int count) {
    lifeline_substitute_attribute(graph, symbol, substitutions, count);
    for (Agraph_t *subgraph = agfstsubg(graph); subgraph != NULL; subgraph = agnxtsubg(subgraph)) {
        lifeline_substitute_graph_attribute(subgraph, symbol, substitutions, count);
    }
}

/// Declares an attribute with `value` as its default when the graph does not declare it.
static inline void lifeline_declare_default(Agraph_t *root, int kind, const char *name, const char *value) {
    if (agattr(root, kind, (char *)name, NULL) == NULL) agattr(root, kind, (char *)name, (char *)value);
}

/// Gives every colour attribute of the graph (its own and its subgraphs', its nodes' and
/// edges', and the declared defaults) its substitute.
///
/// Graphviz's implicit defaults (black lines and text, a white background) are declared first,
/// so that substitutions for "black" and "white" recolour them like any other colour.
static inline void lifeline_apply_palette(Agraph_t *root, const lifeline_color_substitution *substitutions, int count) {
    static const char *const names[] = {"color", "fillcolor", "fontcolor", "pencolor", "bgcolor"};
    static const int kinds[] = {AGRAPH, AGNODE, AGEDGE};
    lifeline_declare_default(root, AGRAPH, "color", "black");
    lifeline_declare_default(root, AGRAPH, "fontcolor", "black");
    lifeline_declare_default(root, AGNODE, "color", "black");
    lifeline_declare_default(root, AGNODE, "fontcolor", "black");
    lifeline_declare_default(root, AGEDGE, "color", "black");
    lifeline_declare_default(root, AGEDGE, "fontcolor", "black");
    lifeline_declare_default(root, AGRAPH, "bgcolor", "white");
    Agsym_t *background = agattr(root, AGRAPH, (char *)"bgcolor", NULL);
    const char *current = agxget(root, background);
    if (current == NULL || current[0] == '\0' || strcasecmp(current, "transparent") == 0) {
        agxset(root, background, (char *)"white");
    }
    for (size_t kindIndex = 0; kindIndex < sizeof kinds / sizeof *kinds; kindIndex++) {
        int kind = kinds[kindIndex];
        for (size_t nameIndex = 0; nameIndex < sizeof names / sizeof *names; nameIndex++) {
            Agsym_t *symbol = agattr(root, kind, (char *)names[nameIndex], NULL);
            if (symbol == NULL) continue;
            const char *newDefault = lifeline_substitute_color(symbol->defval, substitutions, count);
            if (newDefault != NULL) symbol = agattr(root, kind, (char *)names[nameIndex], (char *)newDefault);
            if (kind == AGRAPH) {
                lifeline_substitute_graph_attribute(root, symbol, substitutions, count);
                continue;
            }
            for (Agnode_t *node = agfstnode(root); node != NULL; node = agnxtnode(root, node)) {
                if (kind == AGNODE) {
                    lifeline_substitute_attribute(node, symbol, substitutions, count);
                    continue;
                }
                for (Agedge_t *edge = agfstout(root, node); edge != NULL; edge = agnxtout(root, edge)) {
                    lifeline_substitute_attribute(edge, symbol, substitutions, count);
                }
            }
        }
    }
}

#endif
