package org.apache.storm.task;

/** Something user code can report an error to (the executor logs it and forwards it to the stream manager). */
public interface IErrorReporter {
    void reportError(Throwable error);
}
