/**
 * Micrometer metrics of throttled clients.
 */
@NullMarked
package io.github.llmthrottle.metrics;

import org.jspecify.annotations.NullMarked;
