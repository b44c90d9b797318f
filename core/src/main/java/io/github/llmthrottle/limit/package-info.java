/**
 * Admission control: the per-model limiter, the bounded priority queue, adaptive
 * concurrency, slow start and header calibration.
 */
@NullMarked
package io.github.llmthrottle.limit;

import org.jspecify.annotations.NullMarked;
