/**
 * Admission control: token-aware buckets, the bounded priority queue, adaptive
 * concurrency and header calibration.
 */
@NullMarked
package io.github.llmthrottle.limit;

import org.jspecify.annotations.NullMarked;
