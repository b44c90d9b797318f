/**
 * Model routing: choosing a model that can take a call, the fallback chain and the
 * circuit per model.
 */
@NullMarked
package io.github.llmthrottle.routing;

import org.jspecify.annotations.NullMarked;
