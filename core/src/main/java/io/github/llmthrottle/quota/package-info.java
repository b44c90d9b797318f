/**
 * Day and month token quotas: their windows, reservations and the store that counts them.
 */
@NullMarked
package io.github.llmthrottle.quota;

import org.jspecify.annotations.NullMarked;
