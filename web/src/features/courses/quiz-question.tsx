import { useMutation, useQueryClient } from '@tanstack/react-query'
import { CheckCircle2Icon, XCircleIcon } from 'lucide-react'
import { useId, useState } from 'react'
import type { QuizQuestion as QuizQuestionData } from '#common/courses'
import { Button } from '#web/components/ui/button'
import { toast } from '#web/lib/toast'
import { cn } from '#web/lib/utils'
import { answerQuiz, courseKeys } from './api'

const QUIZ_TOASTS = {
  correct: { title: 'Correct answer!' },
  incorrect: { title: 'Incorrect. Try again!', variant: 'destructive' as const },
  failed: { title: 'Failed to submit answer', variant: 'destructive' as const },
}

type Result = { answer: string; isCorrect: boolean }

/**
 * One quiz question with an option button per answer. The server grades it; the page
 * only learns right or wrong. A wrong answer can be tried again; once right, the question is done.
 */
export function QuizQuestion({ quiz, number, courseRef }: { quiz: QuizQuestionData; number: number; courseRef: string }) {
  const queryClient = useQueryClient()
  const resultId = useId()
  const [result, setResult] = useState<Result | null>(quiz.lastAttempt)
  const mutation = useMutation({
    mutationFn: (answer: string) => answerQuiz(quiz.id, answer),
    onSuccess: (response, answer) => {
      setResult({ answer, isCorrect: response.isCorrect })
      void toast(response.isCorrect ? QUIZ_TOASTS.correct : QUIZ_TOASTS.incorrect)
      // The stored attempt shows again after a reload; refresh the cached course quietly.
      void queryClient.invalidateQueries({ queryKey: courseKeys.detail(courseRef) })
    },
    onError: () => void toast(QUIZ_TOASTS.failed),
  })
  const solved = result?.isCorrect === true

  return (
    <fieldset className="rounded-lg border bg-card p-4" aria-describedby={resultId}>
      <legend className="float-left w-full font-medium">
        <span className="text-muted-foreground">{number}. </span>
        {quiz.question}
      </legend>
      <div className="clear-both grid gap-2 pt-3 sm:grid-cols-2">
        {quiz.options.map((option) => {
          const chosen = result?.answer === option
          const state = chosen ? (result?.isCorrect ? 'correct' : 'incorrect') : null
          const pending = mutation.isPending && mutation.variables === option
          return (
            <Button
              key={option}
              variant="outline"
              aria-pressed={chosen}
              disabled={mutation.isPending || solved}
              onClick={() => mutation.mutate(option)}
              className={cn(
                'h-auto min-h-10 justify-start py-2 text-left whitespace-normal',
                state === 'correct' && 'border-success bg-success/10 text-foreground disabled:opacity-100',
                state === 'incorrect' && 'border-destructive bg-destructive/5',
              )}
            >
              {state === 'correct' ? <CheckCircle2Icon className="text-success" aria-hidden="true" /> : null}
              {state === 'incorrect' ? <XCircleIcon className="text-destructive" aria-hidden="true" /> : null}
              <span>{pending ? `${option}…` : option}</span>
            </Button>
          )
        })}
      </div>
      <p id={resultId} aria-live="polite" className="mt-2 min-h-5 text-sm">
        {result ? (
          result.isCorrect ? (
            <span className="font-medium text-success">You answered this correctly.</span>
          ) : (
            <span className="font-medium text-destructive">“{result.answer}” is not right. Choose another option.</span>
          )
        ) : null}
      </p>
    </fieldset>
  )
}
