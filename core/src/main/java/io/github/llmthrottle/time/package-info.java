/**
 * Time sources: an injectable clock and sleeper, so that the core can be tested with a
 * fake clock.
 */
@NullMarked
package io.github.llmthrottle.time;

import org.jspecify.annotations.NullMarked;
