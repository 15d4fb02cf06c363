package io.github.redlock.aop;

import java.util.List;

import org.springframework.expression.Expression;
import org.springframework.expression.spel.SpelNode;

/**
 * A key written as a {@code +} concatenation ({@code "'order:' + #id"}), split so that a
 * call evaluates each operand exactly once, refuses one that is {@code null} (it would
 * lock on the text {@code "null"}), and concatenates the values with SpEL's own
 * {@code +}. The operands are the nodes of the key's parsed expression, never re-parsed
 * from text.
 *
 * @param operands the operands, in the order SpEL evaluates them
 * @param checked for each operand, whether a {@code null} value is refused (every operand
 * but a literal)
 * @param combined the key with each operand replaced by {@code #}{@value #VARIABLE}
 * followed by its index, parsed once
 * @author redlock contributors
 */
record KeyParts(List<SpelNode> operands, List<Boolean> checked, Expression combined) {

	/** Prefix of the variables that carry the operands' values into the concatenation. */
	static final String VARIABLE = "_redlockKeyPart";

}
