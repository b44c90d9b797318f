package io.github.llmthrottle.client;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.AdmissionRequest;
import io.github.llmthrottle.provider.LogText;
import io.github.llmthrottle.retry.RetryableResponseException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Chooses the deployment of a model for each attempt of a call, and where the attempt
 * then goes.
 * <p>
 * <b>Which one.</b> The deployments whose circuit lets a call through, the one that
 * admits the call soonest first (the estimate of its own limiter for this very request:
 * buckets, queue ahead, the pause after a 429, tenant), configuration order breaking
 * ties; a deployment that could never admit the call comes last, and one that already
 * failed in this call comes after those that did not. So a paused deployment (429), an
 * overloaded one (529, 5xx, I/O errors in this call) or an open one hands its calls to
 * the others.
 * <p>
 * <b>Where to.</b> The request's URI keeps its path below the client's base URL and its
 * query, under the deployment's base URL; the deployment's API key goes in the provider's
 * authentication header, and its own headers are set too. A deployment that brings
 * credentials of its own (its API key, or an authenticating header among its headers)
 * gets none of the caller's ({@link Credentials}: other credential headers, the
 * organisation and project the caller's key belongs to, a key in the query): the caller's
 * credentials go only where the caller sent them.
 * <p>
 * <b>What.</b> Only model calls are routed: a token count or a request the provider does
 * not meter ({@link io.github.llmthrottle.provider.EndpointClass}) goes where the caller
 * sent it, with the caller's key ({@link ThrottledClient#exchange} never hands it here).
 */
final class DeploymentRouting {

    /** Logged as the call whose attempts move on, as it always was. */
    private static final Log logger = LogFactory.getLog(ThrottledCall.class);

    private DeploymentRouting() {
    }

    /**
     * The deployments to try for one attempt, in order.
     * @param client the client name
     * @param model the model the deployments serve
     * @param deployments the model's deployments in configuration order
     * @param admission the call's admission request
     * @param failed deployments that already failed in this call
     * @return the deployments whose circuit lets a call through, best first
     * @throws CircuitOpenException naming the model when every circuit is open
     */
    static List<ThrottledModel> order(String client, String model, List<ThrottledModel> deployments,
            AdmissionRequest admission, Collection<ThrottledModel> failed) {
        List<Choice> choices = new ArrayList<>();
        Duration open = null;
        for (int i = 0; i < deployments.size(); i++) {
            ThrottledModel deployment = deployments.get(i);
            if (!deployment.circuit.isCallPermitted()) {
                Duration remaining = deployment.circuit.remainingOpenTime();
                open = (open == null || (remaining != null && remaining.compareTo(open) < 0)) ? remaining : open;
                continue;
            }
            Duration wait = deployment.limiter.estimatedWait(admission);
            choices.add(new Choice(deployment, failed.contains(deployment), wait, i));
        }
        if (choices.isEmpty()) {
            throw new CircuitOpenException(client, model, open);
        }
        choices.sort(Comparator.comparing(Choice::failed)
            .thenComparing(Choice::estimatedWait, Comparator.nullsLast(Comparator.naturalOrder()))
            .thenComparingInt(Choice::index));
        return choices.stream().map(Choice::deployment).toList();
    }

    /**
     * Where one attempt to {@code deployment} goes. A deployment with credentials of its
     * own (its API key, or an authenticating header among its headers) gets none of the
     * caller's: every credential header and query parameter ({@link Credentials}) is
     * taken off the request before the deployment's headers are set.
     * @param settings the client's settings
     * @param request the request as the caller sent it
     * @param deployment the deployment
     * @return the target
     */
    static ProviderTarget target(ClientSettings settings, ProviderRequest request, ThrottledModel deployment) {
        DeploymentSettings target = deployment.deployment;
        if (target == null) {
            throw new IllegalArgumentException(deployment.name + " is not a deployment");
        }
        URI uri = (target.baseUrl() != null) ? moved(request.uri(), settings.baseUrl(), target.baseUrl())
                : request.uri();
        Map<String, String> headers = new LinkedHashMap<>(target.headers());
        if (target.apiKey() != null) {
            headers.putAll(settings.provider().authHeaders(target.apiKey()));
        }
        if (!Credentials.authenticates(headers.keySet())) {
            // the caller's credentials are the deployment's too (another region of the
            // same account, say)
            return new ProviderTarget(deployment.name, uri, headers);
        }
        return new ProviderTarget(deployment.name, Credentials.withoutQueryCredentials(uri), headers,
                Credentials.HEADERS);
    }

    /**
     * {@code uri} moved from under {@code from} to under {@code to}: its path below
     * {@code from}'s path (the whole path when it is not below it) and its query.
     */
    static URI moved(URI uri, URI from, URI to) {
        String path = (uri.getRawPath() != null) ? uri.getRawPath() : "";
        String fromPath = withoutTrailingSlash(from.getRawPath());
        String below = (!fromPath.isEmpty() && (path.equals(fromPath) || path.startsWith(fromPath + "/")))
                ? path.substring(fromPath.length()) : path;
        String base = to.getScheme() + "://" + to.getRawAuthority() + withoutTrailingSlash(to.getRawPath());
        String query = (uri.getRawQuery() != null) ? "?" + uri.getRawQuery() : "";
        return URI.create(base + below + query);
    }

    private static String withoutTrailingSlash(@Nullable String path) {
        if (path == null) {
            return "";
        }
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    /**
     * Whether the attempt that failed on {@code deployment} moves on to the next one at
     * once.
     * @param context the call
     * @param failedDeployments the deployments that failed in this call, to try after the
     * others
     * @param deployment the deployment that failed
     * @param failure how
     * @param next the deployment to try next, or {@code null} when it was the last
     * @return {@code true} to try {@code next}, {@code false} to fail the attempt
     */
    static boolean movesOn(CallContext context, Set<ThrottledModel> failedDeployments, ThrottledModel deployment,
            Throwable failure, @Nullable ThrottledModel next) {
        String clientName = context.clientName();
        if (failure instanceof CircuitOpenException) {
            // opened since the order was made
            return next != null;
        }
        if (failure instanceof LlmThrottleException ex) {
            // this deployment's own limiter refused the call (its queue is full, its
            // wait too long, its limit too low): another deployment may take it
            if (next == null || !isOwnAdmission(ex.getRejectionReason())) {
                return false;
            }
            logger.debug(LogText
                .escape("Client '" + clientName + "', deployment '" + deployment.name + "' cannot admit the call ("
                        + ex.getRejectionReason() + "); trying deployment '" + next.name + "'"));
            return true;
        }
        if (failure instanceof RetryableResponseException ex) {
            // another deployment takes the attempt at once: it has its own limits and
            // capacity, so there is nothing to wait for
            failedDeployments.add(deployment);
            if (next == null) {
                return false;
            }
            logger.debug(LogText.escape("Client '" + clientName + "', deployment '" + deployment.name + "': "
                    + ex.getClassification().describe() + "; trying deployment '" + next.name + "' at once"));
            return true;
        }
        if (failure instanceof IOException ex && next != null
                && context.pipeline().classifier().classify(ex).retryable()) {
            failedDeployments.add(deployment);
            logger.debug(LogText.escape("Client '" + clientName + "', deployment '" + deployment.name + "': I/O error ("
                    + ex + "); trying deployment '" + next.name + "' at once"));
            return true;
        }
        return false;
    }

    /**
     * Whether a refusal is one deployment's own admission (its queue, its limits), which
     * another deployment does not share, rather than the model's (its quotas).
     */
    private static boolean isOwnAdmission(@Nullable RejectionReason reason) {
        return reason == RejectionReason.QUEUE_FULL || reason == RejectionReason.MAX_WAIT;
    }

    private record Choice(ThrottledModel deployment, boolean failed, @Nullable Duration estimatedWait, int index) {
    }

}
