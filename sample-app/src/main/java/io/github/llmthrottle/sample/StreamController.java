package io.github.llmthrottle.sample;

import java.util.List;
import java.util.Map;

import reactor.core.publisher.Flux;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Streams an answer through the throttled {@code anthropicWebClient}, a {@code Flux} from
 * request to response: {@code curl -N 'localhost:8080/api/stream?q=hello'}. The call
 * waits for admission without a thread, and its tokens are settled from the stream's
 * events as they pass.
 */
@RestController
@RequestMapping("/api")
class StreamController {

    private static final ParameterizedTypeReference<ServerSentEvent<JsonNode>> EVENTS = new ParameterizedTypeReference<>() {
    };

    private final WebClient anthropic;

    StreamController(@Qualifier("anthropicWebClient") WebClient anthropic) {
        this.anthropic = anthropic;
    }

    @GetMapping(path = "/stream", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    Flux<String> stream(@RequestParam("q") String question) {
        Map<String, Object> body = Map.of("model", SimulatedProvider.SONNET, "max_tokens", 256, "stream", true,
                "messages", List.of(Map.of("role", "user", "content", question)));
        return this.anthropic.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .accept(MediaType.TEXT_EVENT_STREAM)
            .bodyValue(body)
            .retrieve()
            .bodyToFlux(EVENTS)
            .filter((event) -> "content_block_delta".equals(event.event()) && event.data() != null)
            .map((event) -> event.data().path("delta").path("text").asString())
            .filter((text) -> !text.isEmpty());
    }

}
