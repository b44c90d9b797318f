package io.github.llmthrottle.provider;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MediaTokensTests {

    @Test
    void pngCostsItsPixelsOver750() throws IOException {
        assertThat(MediaTokens.ofBase64(base64Image("png", 800, 600))).isEqualTo(640);
    }

    @Test
    void largeJpegIsScaledToItsLongEdgeAndCappedAt1600() throws IOException {
        assertThat(MediaTokens.ofBase64(base64Image("jpg", 4000, 3000))).isEqualTo(1600);
        assertThat(MediaTokens.ofBase64(base64Image("jpg", 300, 200))).isEqualTo(80);
    }

    @Test
    void gifInADataUrlIsRead() throws IOException {
        assertThat(MediaTokens.ofBase64("data:image/gif;base64," + base64Image("gif", 150, 100))).isEqualTo(20);
    }

    @Test
    void unknownFormatCostsTheMostAnImageCan() {
        String data = Base64.getEncoder().encodeToString(new byte[4096]);
        assertThat(MediaTokens.ofBase64(data)).isEqualTo(MediaTokens.MAX_IMAGE_TOKENS);
        assertThat(MediaTokens.ofBase64("not base64 at all!")).isEqualTo(MediaTokens.MAX_IMAGE_TOKENS);
    }

    @Test
    void pdfCostsItsPages() {
        String pdf = "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Count 3 >>"
                + " endobj\n3 0 obj << /Type /Page >> endobj\n4 0 obj << /Type/Page >> endobj\n"
                + "5 0 obj << /Type /Page /Parent 2 0 R >> endobj\n%%EOF";
        String data = Base64.getEncoder().encodeToString(pdf.getBytes(StandardCharsets.US_ASCII));
        assertThat(MediaTokens.ofBase64("data:application/pdf;base64," + data))
            .isEqualTo(3 * MediaTokens.TOKENS_PER_PAGE);
    }

    static String base64Image(String format, int width, int height) throws IOException {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(ImageIO.write(image, format, out)).isTrue();
        return Base64.getEncoder().encodeToString(out.toByteArray());
    }

}
