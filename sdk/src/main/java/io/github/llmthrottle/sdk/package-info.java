/**
 * Adapters of the official provider SDKs' own HTTP abstraction to the call pipeline of
 * {@link io.github.llmthrottle.client.ThrottledClient}, for an SDK client built without
 * Spring AI: a one-line hook on the SDK's client builder.
 */
@NullMarked
package io.github.llmthrottle.sdk;

import org.jspecify.annotations.NullMarked;
