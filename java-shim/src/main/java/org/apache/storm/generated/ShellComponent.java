package org.apache.storm.generated;

import java.util.Objects;

/** A multilang component: the command to run and the script it executes. */
public class ShellComponent implements java.io.Serializable, Cloneable {
    private static final long serialVersionUID = 1L;

    private String executionCommand;
    private String script;

    public ShellComponent() {
    }

    public ShellComponent(String executionCommand, String script) {
        this.executionCommand = executionCommand;
        this.script = script;
    }

    public ShellComponent(ShellComponent other) {
        this(other.executionCommand, other.script);
    }

    public String get_execution_command() {
        return executionCommand;
    }

    public void set_execution_command(String executionCommand) {
        this.executionCommand = executionCommand;
    }

    public String get_script() {
        return script;
    }

    public void set_script(String script) {
        this.script = script;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ShellComponent && Objects.equals(executionCommand, ((ShellComponent) o).executionCommand)
                && Objects.equals(script, ((ShellComponent) o).script);
    }

    @Override
    public int hashCode() {
        return Objects.hash(executionCommand, script);
    }
}
