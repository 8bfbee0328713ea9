package org.fedmf;

/**
 * One recommended item: its dense index and its ranking score (higher ranks first; comparable only
 * within one list, on no rating scale: show ratings with {@link Participant#predict}).
 */
public record Recommendation(int item, double score) {}
