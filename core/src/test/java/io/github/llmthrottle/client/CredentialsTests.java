package io.github.llmthrottle.client;

import java.net.URI;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where a request carries its caller's credentials.
 */
class CredentialsTests {

    @Test
    void keysInTheQueryAreRemovedWhateverTheirCaseOrEncoding() {
        assertThat(Credentials.withoutQueryCredentials(URI.create(
                "https://example.com/v1/models/m:generate?api-version=2024-10-21&KEY=a&api%2Dkey=b&access_token=c&alt=sse")))
            .hasToString("https://example.com/v1/models/m:generate?api-version=2024-10-21&alt=sse");
    }

    @Test
    void aQueryOfKeysAloneIsRemovedWithItsQuestionMark() {
        assertThat(Credentials.withoutQueryCredentials(URI.create("https://example.com/v1/chat?key=a&api_key=b#top")))
            .hasToString("https://example.com/v1/chat#top");
    }

    @Test
    void otherParametersKeepTheirEncodingAndOrder() {
        URI uri = URI.create("https://example.com/v1/chat?filter=a%3Db&keyword=x&q=a+b");
        assertThat(Credentials.withoutQueryCredentials(uri)).isSameAs(uri);
    }

    @Test
    void aDeploymentAuthenticatesWithAnAuthenticatingHeaderOfAnyCase() {
        assertThat(Credentials.authenticates(Set.of("X-Goog-Api-Key"))).isTrue();
        assertThat(Credentials.authenticates(Set.of("OpenAI-Organization", "x-region"))).isFalse();
    }

    @Test
    void everyAuthenticatingHeaderIsACredentialHeader() {
        assertThat(Credentials.HEADERS).containsAll(Credentials.AUTHENTICATING_HEADERS)
            .contains("openai-organization", "openai-project", "proxy-authorization");
    }

}
