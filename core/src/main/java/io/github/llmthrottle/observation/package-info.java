/**
 * Micrometer Observation API instrumentation of throttled calls: an observation
 * {@code llm.throttle.call} per logical call and {@code llm.throttle.attempt} per HTTP
 * attempt nested in it, their contexts, default conventions and the convention interfaces
 * an application implements to shape them its own way.
 */
@NullMarked
package io.github.llmthrottle.observation;

import org.jspecify.annotations.NullMarked;
