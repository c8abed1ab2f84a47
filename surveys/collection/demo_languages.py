"""The demo survey's consent text and its Spanish, French and Arabic texts (`make demo` shows them)."""

from __future__ import annotations

from .builder import TranslationSpec

CONSENT = ("This is a demonstration survey run for research on privacy. Taking part is voluntary, and you can stop "
           "at any time before sending. Your browser randomizes your answers before they leave this device; only the "
           "randomized reports are stored, with nothing that identifies you.")

NBSP = "\u00a0"  # French puts a no-break space before ? and :

TRANSLATIONS = [
    TranslationSpec(
        "es", "Salud y comportamiento (demostración)",
        ["¿Alguna vez ha copiado en un examen?",
         "En el último año, ¿ha conducido después de beber más del límite legal?",
         "¿Con qué frecuencia consume drogas recreativas?"],
        {3: ["Nunca", "Menos de una vez al mes", "Una vez al mes", "Cada semana o más"]},
        description="Una encuesta de demostración con preguntas delicadas. Responda con sinceridad: su navegador "
                    "aleatoriza cada respuesta antes de enviarla.",
        consent="Esta es una encuesta de demostración realizada para investigar sobre la privacidad. La "
                "participación es voluntaria y puede dejarla en cualquier momento antes de enviar. Su navegador "
                "aleatoriza sus respuestas antes de que salgan de este dispositivo; solo se guardan los informes "
                "aleatorizados, sin nada que le identifique."),
    TranslationSpec(
        "fr", "Santé et comportement (démonstration)",
        [f"Avez-vous déjà triché à un examen{NBSP}?",
         f"Au cours de l’année écoulée, avez-vous conduit après avoir bu plus que la limite légale{NBSP}?",
         f"À quelle fréquence consommez-vous des drogues à usage récréatif{NBSP}?"],
        {3: ["Jamais", "Moins d’une fois par mois", "Une fois par mois", "Chaque semaine ou plus"]},
        description=f"Un sondage de démonstration avec des questions sensibles. Répondez sincèrement{NBSP}: votre "
                    "navigateur rend chaque réponse aléatoire avant de l’envoyer.",
        consent="Ceci est un sondage de démonstration mené pour la recherche sur la vie privée. La participation est "
                "volontaire et vous pouvez arrêter à tout moment avant l’envoi. Votre navigateur rend vos réponses "
                f"aléatoires avant qu’elles ne quittent cet appareil{NBSP}; seuls les rapports aléatoires sont "
                "conservés, sans rien qui vous identifie."),
    TranslationSpec(
        "ar", "الصحة والسلوك (استبيان تجريبي)",
        ["هل سبق لك أن غششت في امتحان؟",
         "خلال العام الماضي، هل قدت سيارة بعد أن شربت أكثر من الحد المسموح به قانونًا؟",
         "كم مرة تتعاطى المخدرات الترفيهية؟"],
        {3: ["أبدًا", "أقل من مرة في الشهر", "مرة في الشهر", "مرة في الأسبوع أو أكثر"]},
        description="استبيان تجريبي يتضمن أسئلة حساسة. يُرجى الإجابة بصدق: يقوم متصفحك بتعديل كل إجابة عشوائيًا قبل "
                    "إرسالها.",
        consent="هذا استبيان تجريبي يُجرى لأغراض البحث في مجال الخصوصية. المشاركة طوعية، ويمكنك التوقف في أي وقت قبل "
                "الإرسال. يقوم متصفحك بتعديل إجاباتك عشوائيًا قبل أن تغادر هذا الجهاز، ولا تُحفظ إلا التقارير "
                "العشوائية، دون أي شيء يدل على هويتك."),
]
