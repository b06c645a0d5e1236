package org.apache.storm.testing;

import java.nio.charset.Charset;
import org.apache.storm.tuple.Tuple;

/** A {@link TestWordCounter} whose words arrive as bytes (decoded with the platform charset). */
public class TestWordBytesCounter extends TestWordCounter {
    private static final long serialVersionUID = 1L;

    public TestWordBytesCounter() {
    }

    @Override
    protected String getTupleValue(Tuple t, int idx) {
        return new String(t.getBinary(idx), Charset.defaultCharset());
    }
}
