/**
 * The RestClient side: the interceptor that throttles requests and the factory of per-client RestClients.
 */
@NullMarked
package io.github.llmthrottle.client;

import org.jspecify.annotations.NullMarked;
